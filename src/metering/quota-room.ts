// What a task's charge may take past its hold: what the quotas of its token and account have left once the hold is
// given back. A task that reports more than it held is charged at most that, so no charge takes a holder past its
// quota (a holder without a quota: only the balance bound, balance-bound.ts). Budgets do not cap it.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { limitRoom } from './balances/moves.ts';
import { rowsOfTarget, type HoldTarget } from './balances/rows.ts';

/**
 * The least room the token's and the account's quotas have left; `pending`: the token's queued charges, counted as
 * spent.
 */
export function quotaRoom(trx: Kysely<Database>, t: HoldTarget, pending: number): Promise<number> {
  return limitRoom(
    trx,
    rowsOfTarget(t).filter((r) => r.level.quotaColumn),
    pending,
    'no-limit',
  );
}
