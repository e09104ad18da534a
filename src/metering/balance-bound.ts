// The balance bound (balances/bound.ts) on a ledger row, and on the rows a hold target lands on.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { boundCharge } from './balances/bound.ts';
import { boundRoom } from './balances/moves.ts';
import { rowsOfTarget, type HoldTarget } from './balances/rows.ts';
import type { LedgerRow } from './types.ts';

export { MAX_BALANCE } from './balances/bound.ts';

/** The row with its charge cut to `room`. */
export const boundRow = (r: LedgerRow, room: number): LedgerRow =>
  r.charge.amount <= room ? r : { ...r, charge: boundCharge(r.charge, room) };

/** The room left on every row a charge lands on (token, account, budget rows): the least of them. */
export function targetRoom(trx: Kysely<Database>, t: HoldTarget): Promise<number> {
  return boundRoom(trx, rowsOfTarget(t));
}
