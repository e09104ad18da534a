// The room an allowance may take a share of: the least of what the token's quota, its account's quota and each
// budget of the current periods have left (spent and held counted, and the token's charges still queued). Read in
// the transaction that places the allowance; the hold's own compare-and-set (holds.ts) still decides.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { MAX_BALANCE } from './balance-bound.ts';
import type { Billing, BudgetLimit } from './billing.ts';

const used = sql<number | string>`spent + held`;

const left = (limit: number | string | null, u: number | string, extra = 0): number =>
  Math.max(0, Math.min(limit === null ? MAX_BALANCE : Number(limit), MAX_BALANCE) - Number(u) - extra);

export async function allowanceRoom(
  trx: Kysely<Database>,
  tokenId: string,
  billing: Billing | null,
  budgets: ReadonlyArray<BudgetLimit & { start: number }>,
  pending: number,
): Promise<number> {
  const tok = await trx
    .selectFrom('tokens')
    .select(['quota', used.as('used')])
    .where('id', '=', tokenId)
    .executeTakeFirst();
  if (!tok) return 0;
  let room = left(tok.quota, tok.used, pending);
  if (billing?.accountId) {
    const acc = await trx
      .selectFrom('accounts')
      .select(['quota', used.as('used')])
      .where('id', '=', billing.accountId)
      .executeTakeFirst();
    if (!acc) return 0;
    room = Math.min(room, left(acc.quota, acc.used));
  }
  for (const b of budgets) {
    const row = await trx
      .selectFrom('budget_spend')
      .select([used.as('used')])
      .where('holder_id', '=', b.holderId)
      .where('period', '=', b.period)
      .where('period_start', '=', b.start)
      .executeTakeFirst();
    room = Math.min(room, left(b.limit, row?.used ?? 0));
  }
  return room;
}
