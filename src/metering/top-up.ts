// A top-up: credit added to a token's quota, written as a ledger line of kind `credit` in the same transaction, so
// the quota and the ledger cannot disagree. A credit line is no charge: `spent` does not move, bills show credits
// apart from charges and reconciliation leaves them out (there is no upstream usage behind them).
import { sql, type Kysely } from 'kysely';
import { ledgerValues } from './ledger-row.ts';
import type { Database } from '../store/schema.ts';

/** The ledger kind of a credit line; its `amount` is the credit (positive, integer micro-units). */
export const CREDIT_KIND = 'credit';
/** The model column of a credit line: no model is behind it. */
export const CREDIT_MODEL = '-';

/** Whose quota a top-up credits. */
export type HolderKind = 'token' | 'account';

const TABLES: Record<HolderKind, 'tokens' | 'accounts'> = { token: 'tokens', account: 'accounts' };

export interface TopUp {
  /** The token or account credited. */
  holderId: string;
  /** Integer micro-units, > 0. */
  amount: number;
  /** The ledger idempotency key: the same key again credits nothing. */
  key: string;
  requestId: string | null;
  at?: number;
}

export type TopUpResult =
  | { outcome: 'credited' | 'repeated'; quota: number }
  /** `conflict`: the key was used before for another token or amount; `too-large`: the quota would pass 2^53. */
  | { outcome: 'unknown' | 'revoked' | 'unlimited' | 'conflict' | 'too-large' };

/**
 * Credit a token's or an account's quota. The credit line names its holder's kind (holder_kind); an account's keeps
 * the account id in token_id and account_id too (bills show it on its own line).
 */
export function topUpHolder(db: Kysely<Database>, kind: HolderKind, t: TopUp): Promise<TopUpResult> {
  const table = TABLES[kind];
  return db.transaction().execute(async (trx) => {
    const tok = await trx
      .selectFrom(table)
      .select(['quota', 'revoked_at'])
      .where('id', '=', t.holderId)
      .executeTakeFirst();
    if (!tok) return { outcome: 'unknown' };
    if (tok.revoked_at !== null) return { outcome: 'revoked' };
    // A token without a quota has nothing to add to (give it one with PATCH first).
    if (tok.quota === null) return { outcome: 'unlimited' };
    if (Number(tok.quota) + t.amount > Number.MAX_SAFE_INTEGER) return { outcome: 'too-large' };
    const row = {
      key: t.key,
      tokenId: t.holderId,
      model: CREDIT_MODEL,
      kind: CREDIT_KIND,
      charge: { amount: t.amount, quantities: { credit: t.amount }, unitPrices: {} },
      requestId: t.requestId,
      taskId: null,
      upstreamRequestId: null,
      createdAt: t.at ?? Date.now(),
      accountId: kind === 'account' ? t.holderId : null,
    };
    const ins = await trx
      .insertInto('ledger')
      .values({ ...ledgerValues(row), holder_kind: kind })
      .onConflict((oc) => oc.column('idempotency_key').doNothing())
      .executeTakeFirst();
    if (Number(ins.numInsertedOrUpdatedRows ?? 0n) === 0) {
      const before = await trx
        .selectFrom('ledger')
        .select(['token_id', 'kind', 'amount'])
        .where('idempotency_key', '=', t.key)
        .executeTakeFirst();
      const same =
        before && before.token_id === t.holderId && before.kind === CREDIT_KIND && Number(before.amount) === t.amount;
      return same ? { outcome: 'repeated', quota: Number(tok.quota) } : { outcome: 'conflict' };
    }
    // Relative, in the database: a concurrent charge, edit or top-up is never overwritten.
    await trx
      .updateTable(table)
      .set({ quota: sql`quota + ${t.amount}` })
      .where('id', '=', t.holderId)
      .execute();
    const after = await trx.selectFrom(table).select('quota').where('id', '=', t.holderId).executeTakeFirstOrThrow();
    return { outcome: 'credited', quota: Number(after.quota) };
  });
}
