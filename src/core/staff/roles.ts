// Staff roles and what each may do. Every admin route names its area (its rule, on its route-table row); a role
// reads an area, writes it, or neither. One table, read by the admin API's check, the console's session answer (what
// to hide) and the OpenAPI document.

export const ROLES = ['owner', 'admin', 'operator', 'billing', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What an admin route is about. `users`: staff people and their keys; `upstream-keys`: channels' creation and edits,
 * which carry the gateway's own upstream keys; `channels`: channel health (test, enable, disable, capacity);
 * `credit`: top-ups; `reports`: what every role reads (request log, ledger, bills, audit, stats, health).
 */
export const AREAS = [
  'users',
  'upstream-keys',
  'tokens',
  'accounts',
  'channels',
  'tasks',
  'prices',
  'credit',
  'webhooks',
  'reports',
] as const;
export type Area = (typeof AREAS)[number];

/** An admin route's rule: its area; a GET reads it, any other method writes it. */
export interface RouteRule {
  area: Area;
}

const EVERYONE: readonly Role[] = ROLES;
const OWNER: readonly Role[] = ['owner'];

/** Who may write each area. Reports are read-only for every role. */
const WRITERS: Record<Area, readonly Role[]> = {
  users: OWNER,
  'upstream-keys': OWNER,
  tokens: ['owner', 'admin', 'operator'],
  accounts: ['owner', 'admin', 'operator', 'billing'],
  channels: ['owner', 'admin', 'operator'],
  tasks: ['owner', 'admin', 'operator'],
  prices: ['owner', 'admin', 'billing'],
  credit: ['owner', 'admin', 'billing'],
  webhooks: ['owner', 'admin'],
  reports: [],
};

/** Who may read each area: everyone but for the staff list, which only an owner sees. */
const READERS: Record<Area, readonly Role[]> = {
  ...Object.fromEntries(AREAS.map((a) => [a, EVERYONE])),
  users: OWNER,
} as Record<Area, readonly Role[]>;

export type Access = 'write' | 'read' | 'none';

/** What `role` may do in `area`. */
export function accessOf(role: Role, area: Area): Access {
  if (WRITERS[area].includes(role)) return 'write';
  return READERS[area].includes(role) ? 'read' : 'none';
}

/** May `role` call a route of `area` with `method`? (GET and HEAD read; anything else writes.) */
export function permits(role: Role, rule: RouteRule, method: string): boolean {
  const access = accessOf(role, rule.area);
  return method === 'GET' || method === 'HEAD' ? access !== 'none' : access === 'write';
}

/** Every area's access for `role`: what the console shows and hides. */
export function accessMap(role: Role): Record<Area, Access> {
  return Object.fromEntries(AREAS.map((a) => [a, accessOf(role, a)])) as Record<Area, Access>;
}

/** The roles that may call a route (the OpenAPI document's x-tollway-roles). */
export const rolesFor = (rule: RouteRule, method: string): Role[] => ROLES.filter((r) => permits(r, rule, method));

/** Secrets (masked upstream keys included) are never shown to a viewer. */
export const seesSecrets = (role: Role): boolean => role !== 'viewer';

export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

/**
 * Who is calling the admin API: a person (with the key or console session they used), or the bootstrap admin key
 * (TOLLWAY_ADMIN_KEY, no person, an owner). `keyId` is the personal key's id, `admin-key` for the bootstrap key, and
 * null for a console session opened without a key (single sign-on).
 */
export interface Staff {
  role: Role;
  personId: string | null;
  keyId: string | null;
}

export const BOOTSTRAP_KEY_ID = 'admin-key';
export const BOOTSTRAP: Staff = { role: 'owner', personId: null, keyId: BOOTSTRAP_KEY_ID };
