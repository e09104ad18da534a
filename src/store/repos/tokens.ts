import type { Kysely, Selectable } from 'kysely';
import type { Database, TokensTable } from '../schema.ts';
import type { Budget } from '../../vocabulary/budgets.ts';
import { parseJson } from '../json.ts';
import { decodeBudgets, encodeBudgets } from '../budgets-text.ts';
import { toAccountRecord, type AccountRecord } from './accounts.ts';

export type TokenRow = Selectable<TokensTable>;

export interface TokenRecord {
  id: string;
  name: string;
  prefix: string;
  models: string[] | null;
  quota: number | null;
  spent: number;
  held: number;
  rpmLimit: number | null;
  tpmLimit: number | null;
  concurrencyLimit: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  createdAt: number;
  /** Until when the secret before the last rotation is still accepted (ms), or null. */
  previousSecretUntil: number | null;
  /** When the current callback secret was shown (creation or its rotation); null: never shown to anyone. */
  callbackSecretIssuedAt: number | null;
  /** Until when the callback secret before the last rotation still signs too (ms), or null. */
  previousCallbackSecretUntil: number | null;
  /** The account that owns the token, or null. */
  accountId: string | null;
  budgets: Budget[];
}

/** A token's callback secrets as stored: sealed (SecretBox). */
export interface SealedCallbackSecrets {
  /** null: a token older than callback secrets that has not been given one yet. */
  current: string | null;
  /** The one before the last rotation while it still signs (`until` in the future), else null. */
  previous: string | null;
}

/** A token found by one of its secrets: the current one (`graceUntil` null) or the previous one within its grace. */
export interface TokenMatch {
  record: TokenRecord;
  /** Set when the secret matched is the previous one: it stops working at this time (ms). */
  graceUntil: number | null;
  /** The token's account (read only for a token that has one). */
  account: AccountRecord | null;
}

/** The fields an operator may change on a token (absent = unchanged; null = remove the limit). */
export interface TokenPatch {
  name?: string;
  models?: string[] | null;
  quota?: number | null;
  rpmLimit?: number | null;
  tpmLimit?: number | null;
  concurrencyLimit?: number | null;
  expiresAt?: number | null;
  accountId?: string | null;
  budgets?: Budget[];
}

export function toTokenRecord(r: TokenRow): TokenRecord {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    models: parseJson<string[]>(r.models),
    quota: r.quota === null ? null : Number(r.quota),
    spent: Number(r.spent),
    held: Number(r.held),
    rpmLimit: r.rpm_limit,
    tpmLimit: r.tpm_limit === null ? null : Number(r.tpm_limit),
    concurrencyLimit: r.concurrency_limit,
    expiresAt: r.expires_at === null ? null : Number(r.expires_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    createdAt: Number(r.created_at),
    previousSecretUntil:
      r.previous_secret_hash === null || r.previous_secret_until === null ? null : Number(r.previous_secret_until),
    callbackSecretIssuedAt: r.callback_secret_issued_at === null ? null : Number(r.callback_secret_issued_at),
    previousCallbackSecretUntil:
      r.previous_callback_secret === null || r.previous_callback_secret_until === null
        ? null
        : Number(r.previous_callback_secret_until),
    accountId: r.account_id,
    budgets: decodeBudgets(r.budgets),
  };
}

export interface NewToken {
  id: string;
  name: string;
  secretHash: string;
  prefix: string;
  models: string[] | null;
  quota: number | null;
  expiresAt: number | null;
  rpmLimit?: number | null;
  tpmLimit?: number | null;
  concurrencyLimit?: number | null;
  /** Sealed `whsec_…` callback secret, shown to the creator; absent: none yet (as a token older than migration 013). */
  callbackSecret?: string;
  accountId?: string | null;
  budgets?: Budget[];
}

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
