// The bound no stored balance passes: a token's, an account's and a budget row's spent + held stay at or below
// MAX_BALANCE (2^53 − 1 micro-units), so every balance is an exact JS number and a bigint column never overflows.
// A hold that would pass it is refused (holds.ts); a charge that would is cut to what is left, recorded in its
// quantities (`clamped_from`, as MAX_CHARGE's clamp), so the ledger and `spent` always agree.
import type { Charge } from '../types.ts';

export const MAX_BALANCE = Number.MAX_SAFE_INTEGER;

/** What a balance of `used` (spent + held) may still take. */
export const roomLeft = (used: number): number => Math.max(0, MAX_BALANCE - used);

/** The charge cut to `room` (its priced amount kept as `clamped_from`); the charge itself when it fits. */
export function boundCharge(c: Charge, room: number): Charge {
  if (c.amount <= room) return c;
  const from = c.quantities.clamped_from ?? String(c.amount);
  return { ...c, amount: room, quantities: { ...c.quantities, clamped_from: from } };
}
