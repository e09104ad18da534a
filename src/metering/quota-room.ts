// What a task's charge may take past its hold: what the quotas of its token and account have left once the hold is
// given back. A task that reports more than it held is charged at most that, so no charge takes a holder past its
// quota (a holder without a quota: only the balance bound, balance-bound.ts).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { MAX_BALANCE } from './balance-bound.ts';
import type { HoldTarget } from './holds.ts';

const used = sql<number | string>`spent + held`;

/** The least room the token's and the account's quotas have left; `pending`: the token's queued charges, counted as spent. */
export async function quotaRoom(trx: Kysely<Database>, t: HoldTarget, pending: number): Promise<number> {
  let room = MAX_BALANCE;
  const tok = await trx
    .selectFrom('tokens')
    .select(['quota', used.as('used')])
    .where('id', '=', t.tokenId)
    .executeTakeFirst();
  if (tok && tok.quota !== null) room = Math.min(room, Number(tok.quota) - Number(tok.used) - pending);
  if (t.accountId !== null) {
    const acc = await trx
      .selectFrom('accounts')
      .select(['quota', used.as('used')])
      .where('id', '=', t.accountId)
      .executeTakeFirst();
    if (acc && acc.quota !== null) room = Math.min(room, Number(acc.quota) - Number(acc.used));
  }
  return Math.max(0, room);
}
