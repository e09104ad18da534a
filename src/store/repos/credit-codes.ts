// Redemption code batches and their codes (migration 050). A code is found by its hash; its redemption is a
// compare-and-set on `redeemed_at`, so of many concurrent redeemers one claims it. Lists are newest first, paged by
// (created_at, id) for batches and (redeemed_at, id) for redemptions.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../schema.ts';
import type { CreditBatchesTable, CreditCodesTable } from '../schema-credit.ts';

export interface CreditBatchRecord {
  id: string;
  name: string | null;
  /** Micro-units each code credits. */
  amount: number;
  count: number;
  /** How many of its codes were redeemed. */
  redeemed: number;
  expiresAt: number;
  revokedAt: number | null;
  createdBy: string;
  createdAt: number;
}

export interface CreditCodeRecord {
  id: string;
  batchId: string;
  hint: string;
  redeemedAt: number | null;
  holderKind: 'token' | 'account' | null;
  holderId: string | null;
  tokenId: string | null;
  requestId: string | null;
}

/** Who claimed a code: the holder credited and the token that asked. */
export interface Claim {
  holderKind: 'token' | 'account';
  holderId: string;
  tokenId: string | null;
  requestId: string | null;
  at: number;
}

export interface After {
  at: number;
  id: string;
}

const toBatch = (
  r: Selectable<CreditBatchesTable> & { redeemed: number | string | bigint | null },
): CreditBatchRecord => ({
  id: r.id,
  name: r.name ?? null,
  amount: Number(r.amount),
  count: Number(r.count),
  redeemed: Number(r.redeemed ?? 0),
  expiresAt: Number(r.expires_at),
  revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  createdBy: r.created_by,
  createdAt: Number(r.created_at),
});

export const toCode = (r: Selectable<CreditCodesTable>): CreditCodeRecord => ({
  id: r.id,
  batchId: r.batch_id,
  hint: r.hint,
  redeemedAt: r.redeemed_at === null ? null : Number(r.redeemed_at),
  holderKind: (r.holder_kind as CreditCodeRecord['holderKind']) ?? null,
  holderId: r.holder_id ?? null,
  tokenId: r.token_id ?? null,
  requestId: r.request_id ?? null,
});

/** Rows per INSERT of a batch's codes: well under either store's bound on statement parameters. */
const CHUNK = 200;

export class CreditCodesRepo {
  constructor(private readonly db: Kysely<Database>) {}

  private batches() {
    return this.db
      .selectFrom('credit_batches as b')
      .selectAll('b')
      .select((eb) =>
        eb
          .selectFrom('credit_codes as c')
          .select(sql<number>`count(*)`.as('n'))
          .whereRef('c.batch_id', '=', 'b.id')
          .where('c.redeemed_at', 'is not', null)
          .as('redeemed'),
      );
  }

  /** A batch and its codes, in one transaction: a batch is never seen without all its codes. */
  async createBatch(
    b: Omit<CreditBatchRecord, 'redeemed' | 'revokedAt'>,
    codes: ReadonlyArray<{ id: string; hash: string; hint: string }>,
  ): Promise<CreditBatchRecord> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('credit_batches')
        .values({
          id: b.id,
          name: b.name,
          amount: b.amount,
          count: b.count,
          expires_at: b.expiresAt,
          revoked_at: null,
          created_by: b.createdBy,
          created_at: b.createdAt,
        })
        .execute();
      for (let i = 0; i < codes.length; i += CHUNK)
        await trx
          .insertInto('credit_codes')
          .values(codes.slice(i, i + CHUNK).map((c) => ({ id: c.id, batch_id: b.id, code_hash: c.hash, hint: c.hint })))
          .execute();
    });
    return { ...b, redeemed: 0, revokedAt: null };
  }

  async getBatch(id: string): Promise<CreditBatchRecord | null> {
    const r = await this.batches().where('b.id', '=', id).executeTakeFirst();
    return r ? toBatch(r) : null;
  }

  /** Newest first; `limit` batches after `after` (its created_at and id). */
  async listBatches(limit: number, after?: After): Promise<CreditBatchRecord[]> {
    let q = this.batches();
    if (after)
      q = q.where((eb) =>
        eb.or([
          eb('b.created_at', '<', after.at),
          eb.and([eb('b.created_at', '=', after.at), eb('b.id', '<', after.id)]),
        ]),
      );
    return (await q.orderBy('b.created_at', 'desc').orderBy('b.id', 'desc').limit(limit).execute()).map(toBatch);
  }

  /** A batch's codes, in the order they were made. */
  async codesOf(batchId: string): Promise<CreditCodeRecord[]> {
    const rows = await this.db
      .selectFrom('credit_codes')
      .selectAll()
      .where('batch_id', '=', batchId)
      .orderBy('id')
      .execute();
    return rows.map(toCode);
  }

  /** Revoke a batch: its unredeemed codes are refused from then on. False: unknown or revoked before. */
  async revokeBatch(id: string, at: number): Promise<boolean> {
    const r = await this.db
      .updateTable('credit_batches')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** The code with this hash and its batch. */
  async findByHash(hash: string): Promise<{ code: CreditCodeRecord; batch: CreditBatchRecord } | null> {
    const c = await this.db.selectFrom('credit_codes').selectAll().where('code_hash', '=', hash).executeTakeFirst();
    if (!c) return null;
    const batch = await this.getBatch(c.batch_id);
    return batch ? { code: toCode(c), batch } : null;
  }

  async getCode(id: string): Promise<CreditCodeRecord | null> {
    const c = await this.db.selectFrom('credit_codes').selectAll().where('id', '=', id).executeTakeFirst();
    return c ? toCode(c) : null;
  }

  /** Claim an unredeemed code for a holder (compare-and-set): true for the one claimer. */
  async claim(codeId: string, c: Claim): Promise<boolean> {
    const r = await this.db
      .updateTable('credit_codes')
      .set({
        redeemed_at: c.at,
        holder_kind: c.holderKind,
        holder_id: c.holderId,
        token_id: c.tokenId,
        request_id: c.requestId,
      })
      .where('id', '=', codeId)
      .where('redeemed_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * Give back a claim whose credit was refused — unless the ledger holds its credit line after all (a retry of the
   * same token credited it meanwhile): a code whose credit is in the ledger stays redeemed.
   */
  async release(codeId: string, holderId: string, ledgerKey: string): Promise<void> {
    await this.db
      .updateTable('credit_codes')
      .set({ redeemed_at: null, holder_kind: null, holder_id: null, token_id: null, request_id: null })
      .where('id', '=', codeId)
      .where('holder_id', '=', holderId)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('ledger').select('id').where('idempotency_key', '=', ledgerKey))))
      .execute();
  }

  /** Redeemed codes, newest redemption first, with their batch's amount and name. */
  async redemptions(
    limit: number,
    after?: After,
  ): Promise<Array<CreditCodeRecord & { amount: number; batchName: string | null }>> {
    let q = this.db
      .selectFrom('credit_codes as c')
      .innerJoin('credit_batches as b', 'b.id', 'c.batch_id')
      .selectAll('c')
      .select(['b.amount as amount', 'b.name as batch_name'])
      .where('c.redeemed_at', 'is not', null);
    if (after)
      q = q.where((eb) =>
        eb.or([
          eb('c.redeemed_at', '<', after.at),
          eb.and([eb('c.redeemed_at', '=', after.at), eb('c.id', '<', after.id)]),
        ]),
      );
    const rows = await q.orderBy('c.redeemed_at', 'desc').orderBy('c.id', 'desc').limit(limit).execute();
    return rows.map((r) => ({ ...toCode(r), amount: Number(r.amount), batchName: r.batch_name ?? null }));
  }
}
