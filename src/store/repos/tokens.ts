import type { Kysely, Selectable } from 'kysely';
import type { Database, TokensTable } from '../schema.ts';
import { parseJson } from '../json.ts';

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
    };
    await this.db.insertInto('tokens').values(row).execute();
    return toTokenRecord({ ...row, spent: 0, held: 0 });
  }

  async findByHash(hash: string): Promise<TokenRecord | null> {
    const r = await this.db.selectFrom('tokens').selectAll().where('secret_hash', '=', hash).executeTakeFirst();
    return r ? toTokenRecord(r) : null;
  }

  async get(id: string): Promise<TokenRecord | null> {
    const r = await this.db.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toTokenRecord(r) : null;
  }

  async list(): Promise<TokenRecord[]> {
    const rows = await this.db.selectFrom('tokens').selectAll().orderBy('created_at', 'asc').execute();
    return rows.map(toTokenRecord);
  }

  /** Revoke; returns the secret hash so caches can be invalidated, or null when unknown. */
  async revoke(id: string, now = Date.now()): Promise<string | null> {
    const r = await this.db.selectFrom('tokens').select(['secret_hash']).where('id', '=', id).executeTakeFirst();
    if (!r) return null;
    await this.db.updateTable('tokens').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
    return r.secret_hash;
  }
}
