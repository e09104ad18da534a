// The overview's order of busiest rows: exact spends compared as bigints, largest first.

/** Negative when `a` spent more than `b` (it sorts first), positive when less, 0 when equal. */
export const compareDown = (a: bigint, b: bigint): number => (a > b ? -1 : a < b ? 1 : 0);
