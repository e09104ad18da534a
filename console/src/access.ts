// What the signed-in role may do, area by area (the session's `access`): pages and controls it may not use are
// hidden. The gateway refuses them anyway; hiding only spares a click that would be refused.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Access, Area } from './types.ts';

export const AccessContext = createContext<Record<Area, Access> | null>(null);

/** What the signed-in role may do in `area`. */
export function useAccess(area: Area): Access {
  return useContext(AccessContext)?.[area] ?? 'none';
}

/**
 * The areas the role may not write, as the `data-nowrite` list that access.css reads to hide every control marked
 * `data-write="<area>"`: one mark per control, no role logic in the pages.
 */
export function hiddenWrites(access: Record<Area, Access>): string {
  return (Object.keys(access) as Area[]).filter((a) => access[a] !== 'write').join(' ');
}
