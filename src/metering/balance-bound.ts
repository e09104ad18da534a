// The bound no stored balance passes: a token's, an account's and a budget row's spent + held stay at or below
// MAX_BALANCE (2^53 − 1 micro-units), so every balance is an exact JS number and a bigint column never overflows.
// A hold that would pass it is refused (holds.ts); a charge that would is cut to what is left, recorded in its
// quantities (`clamped_from`, as MAX_CHARGE's clamp), so the ledger and `spent` always agree.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { boundRoom } from './balances/moves.ts';
import { rowsOfTarget, type HoldTarget } from './balances/rows.ts';
import type { LedgerRow } from './ledger-row.ts';
import type { Charge } from './types.ts';

export const MAX_BALANCE = Number.MAX_SAFE_INTEGER;

/** What a balance of `used` (spent + held) may still take. */
export const roomLeft = (used: number): number => Math.max(0, MAX_BALANCE - used);

/** The charge cut to `room` (its priced amount kept as `clamped_from`); the charge itself when it fits. */
export function boundCharge(c: Charge, room: number): Charge {
  if (c.amount <= room) return c;
  const from = c.quantities.clamped_from ?? String(c.amount);
  return { ...c, amount: room, quantities: { ...c.quantities, clamped_from: from } };
}

/** The row with its charge cut to `room`. */
export const boundRow = (r: LedgerRow, room: number): LedgerRow => (r.charge.amount <= room ? r : { ...r, charge: boundCharge(r.charge, room) });

const used = sql<number | string>`spent + held`;

/**
 * The room left on each token, read under a row lock (the no-op update takes it on PostgreSQL, and SQLite's write
 * lock): no other transaction moves these rows until this one ends. A token not found has the whole bound.
 */
export function tokenRooms(trx: Kysely<Database>, ids: readonly string[]): Promise<Map<string, number>> {
  return rooms(trx, 'tokens', ids);
}

/** The room left on each account, read under a row lock as tokenRooms (take the tokens' first: the order every write locks in). */
export function accountRooms(trx: Kysely<Database>, ids: readonly string[]): Promise<Map<string, number>> {
  return rooms(trx, 'accounts', ids);
}

async function rooms(trx: Kysely<Database>, table: 'tokens' | 'accounts', ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await trx
    .updateTable(table)
    .set({ spent: sql`spent` })
    .where('id', 'in', [...ids])
    .returning(['id', used.as('used')])
    .execute();
  return new Map(rows.map((r) => [r.id, roomLeft(Number(r.used))]));
}

/** The room left on every row a charge lands on (token, account, budget rows): the least of them. */
export function targetRoom(trx: Kysely<Database>, t: HoldTarget): Promise<number> {
  return boundRoom(trx, rowsOfTarget(t));
}
