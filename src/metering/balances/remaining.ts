// What a limit (a quota, a budget) leaves a holder: the one formula the views and the room of a hold share.

/** `remaining = max(0, limit − spent − held)`; null for a holder without a limit. */
export function remaining(limit: number, spent: number, held: number): number;
export function remaining(limit: number | null, spent: number, held: number): number | null;
export function remaining(limit: number | null, spent: number, held: number): number | null {
  return limit === null ? null : Math.max(0, limit - spent - held);
}
