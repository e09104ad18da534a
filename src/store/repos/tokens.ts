import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { encodeBudgets } from '../budgets-text.ts';
import { toAccountRecord, type AccountRecord } from './accounts.ts';
import {
  toTokenRecord,
  type NewToken,
  type SealedCallbackSecrets,
  type TokenMatch,
  type TokenPatch,
  type TokenRecord,
} from './token-record.ts';

export class TokensRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async create(t: NewToken, now = Date.now()): Promise<TokenRecord> {
    const row = {
      id: t.id,
      name: t.name,
      secret_hash: t.secretHash,
      prefix: t.prefix,
      models: t.models === null ? null : JSON.stringify(t.models),
      quota: t.quota,
      rpm_limit: t.rpmLimit ?? null,
      tpm_limit: t.tpmLimit ?? null,
      concurrency_limit: t.concurrencyLimit ?? null,
      expires_at: t.expiresAt,
      revoked_at: null,
      created_at: now,
      callback_secret: t.callbackSecret ?? null,
      callback_secret_issued_at: t.callbackSecret === undefined ? null : now,
      account_id: t.accountId ?? null,
      budgets: encodeBudgets(t.budgets),
    };
    await this.db.insertInto('tokens').values(row).execute();
    return toTokenRecord({
      ...row,
      spent: 0,
      held: 0,
      previous_secret_hash: null,
      previous_secret_until: null,
      previous_callback_secret: null,
      previous_callback_secret_until: null,
    });
  }

  async findByHash(hash: string): Promise<TokenRecord | null> {
    const r = await this.db.selectFrom('tokens').selectAll().where('secret_hash', '=', hash).executeTakeFirst();
    return r ? toTokenRecord(r) : null;
  }

  /** The token whose current secret, or previous secret (whatever its grace), hashes to `hash`. */
  async findForAuth(hash: string): Promise<TokenMatch | null> {
    const current = await this.findByHash(hash);
    if (current) return { record: current, graceUntil: null, account: await this.accountOf(current) };
    const r = await this.db
      .selectFrom('tokens')
      .selectAll()
      .where('previous_secret_hash', '=', hash)
      .executeTakeFirst();
    if (!r) return null;
    const record = toTokenRecord(r);
    // Past its grace the previous secret is no secret of this token; the caller refuses it like any unknown one.
    return {
      record,
      graceUntil: r.previous_secret_until === null ? 0 : Number(r.previous_secret_until),
      account: await this.accountOf(record),
    };
  }

  /** A token's account: one more read only for a token that has one. */
  private async accountOf(t: TokenRecord): Promise<AccountRecord | null> {
    if (t.accountId === null) return null;
    const a = await this.db.selectFrom('accounts').selectAll().where('id', '=', t.accountId).executeTakeFirst();
    return a ? toAccountRecord(a) : null;
  }

  /** The secret hashes a cache may hold for this token (current and previous), or null when the token is unknown. */
  async secretHashes(id: string): Promise<string[] | null> {
    const r = await this.db
      .selectFrom('tokens')
      .select(['secret_hash', 'previous_secret_hash'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!r) return null;
    return r.previous_secret_hash === null ? [r.secret_hash] : [r.secret_hash, r.previous_secret_hash];
  }

  /**
   * Change the given fields of a token not revoked, only while its quota is still `quotaWas` (a compare-and-set: a
   * quota written from a read never overwrites a top-up or edit made since). False when nothing was changed.
   */
  async update(id: string, p: TokenPatch, quotaWas: number | null): Promise<boolean> {
    const set = {
      ...(p.name !== undefined ? { name: p.name } : {}),
      ...(p.models !== undefined ? { models: p.models === null ? null : JSON.stringify(p.models) } : {}),
      ...(p.quota !== undefined ? { quota: p.quota } : {}),
      ...(p.rpmLimit !== undefined ? { rpm_limit: p.rpmLimit } : {}),
      ...(p.tpmLimit !== undefined ? { tpm_limit: p.tpmLimit } : {}),
      ...(p.concurrencyLimit !== undefined ? { concurrency_limit: p.concurrencyLimit } : {}),
      ...(p.expiresAt !== undefined ? { expires_at: p.expiresAt } : {}),
      ...(p.accountId !== undefined ? { account_id: p.accountId } : {}),
      ...(p.budgets !== undefined ? { budgets: encodeBudgets(p.budgets) } : {}),
    };
    // With nothing to set, the same conditions are checked by writing the quota read back onto itself.
    const r = await this.db
      .updateTable('tokens')
      .set(Object.keys(set).length === 0 ? { quota: quotaWas } : set)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .where('quota', quotaWas === null ? 'is' : '=', quotaWas)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * A new secret for the same token. The current secret becomes the previous one, accepted until `graceUntil`
   * (null: refused at once). Only a token not revoked is rotated; false otherwise.
   */
  async rotate(id: string, secretHash: string, prefix: string, graceUntil: number | null): Promise<boolean> {
    const r = await this.db
      .updateTable('tokens')
      .set((eb) => ({
        secret_hash: secretHash,
        prefix,
        previous_secret_hash: graceUntil === null ? null : eb.ref('secret_hash'),
        previous_secret_until: graceUntil,
      }))
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** The sealed callback secrets signing now, or null when the token is unknown. */
  async callbackSecrets(id: string, now = Date.now()): Promise<SealedCallbackSecrets | null> {
    const r = await this.db
      .selectFrom('tokens')
      .select(['callback_secret', 'previous_callback_secret', 'previous_callback_secret_until'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!r) return null;
    const live = r.previous_callback_secret_until !== null && Number(r.previous_callback_secret_until) > now;
    return { current: r.callback_secret, previous: live ? r.previous_callback_secret : null };
  }

  /**
   * Give a token older than callback secrets its first one (not issued: nobody was shown it); kept if another instance
   * won.
   */
  async setCallbackSecretIfNone(id: string, sealed: string): Promise<void> {
    await this.db
      .updateTable('tokens')
      .set({ callback_secret: sealed })
      .where('id', '=', id)
      .where('callback_secret', 'is', null)
      .execute();
  }

  /**
   * A new callback secret. The current one becomes the previous one, still signing until `graceUntil` (null: it
   * stops at once). Only a token not revoked is rotated; false otherwise.
   */
  async rotateCallbackSecret(
    id: string,
    sealed: string,
    graceUntil: number | null,
    now = Date.now(),
  ): Promise<boolean> {
    const r = await this.db
      .updateTable('tokens')
      .set((eb) => ({
        callback_secret: sealed,
        callback_secret_issued_at: now,
        previous_callback_secret: graceUntil === null ? null : eb.ref('callback_secret'),
        previous_callback_secret_until: graceUntil,
      }))
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async get(id: string): Promise<TokenRecord | null> {
    const r = await this.db.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toTokenRecord(r) : null;
  }

  async list(): Promise<TokenRecord[]> {
    const rows = await this.db.selectFrom('tokens').selectAll().orderBy('created_at', 'asc').execute();
    return rows.map(toTokenRecord);
  }

  /** Up to `limit` tokens in creation order (id breaks ties), after the position `after` when given. */
  async page(limit: number, after?: { createdAt: number; id: string }): Promise<TokenRecord[]> {
    let q = this.db.selectFrom('tokens').selectAll();
    if (after)
      q = q.where((eb) =>
        eb.or([
          eb('created_at', '>', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)]),
        ]),
      );
    const rows = await q.orderBy('created_at', 'asc').orderBy('id', 'asc').limit(limit).execute();
    return rows.map(toTokenRecord);
  }

  /** Revoke; returns the secret hash so caches can be invalidated, or null when unknown. */
  async revoke(id: string, now = Date.now()): Promise<string | null> {
    const r = await this.db.selectFrom('tokens').select(['secret_hash']).where('id', '=', id).executeTakeFirst();
    if (!r) return null;
    await this.db
      .updateTable('tokens')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
    return r.secret_hash;
  }
}
