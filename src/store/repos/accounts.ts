// Customer accounts (migration 018): the rows and their changes. Money moves (holds, charges) are in
// src/metering/holds.ts; credits in src/metering/top-up.ts.
import type { Kysely, Selectable } from 'kysely';
import type { Budget } from '../../vocabulary/budgets.ts';
import { decodeBudgets, encodeBudgets } from '../budgets-text.ts';
import type { AccountsTable, Database } from '../schema.ts';

export interface AccountRecord {
  id: string;
  name: string;
  quota: number | null;
  spent: number;
  held: number;
  budgets: Budget[];
  priceGroup: string | null;
  timeZone: string | null;
  expiresAt: number | null;
  revokedAt: number | null;
  /** Fair-share weight in a contended upstream's queue (capacity/; default 1). */
  weight: number;
  createdAt: number;
  updatedAt: number;
}

/** The fields an operator may change (absent = unchanged; null = remove). */
export interface AccountPatch {
  name?: string;
  quota?: number | null;
  budgets?: Budget[];
  priceGroup?: string | null;
  timeZone?: string | null;
  expiresAt?: number | null;
  weight?: number | null;
}

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

export function toAccountRecord(r: Selectable<AccountsTable>): AccountRecord {
  return {
    id: r.id,
    name: r.name,
    quota: num(r.quota),
    spent: Number(r.spent),
    held: Number(r.held),
    budgets: decodeBudgets(r.budgets),
    priceGroup: r.price_group,
    timeZone: r.time_zone,
    expiresAt: num(r.expires_at),
    revokedAt: num(r.revoked_at),
    weight: r.weight == null ? 1 : Number(r.weight),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

/** Ids in runs of 500: a statement's bound parameters stay well under either store's limit. */
function chunks(ids: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < ids.length; i += 500) out.push(ids.slice(i, i + 500));
  return out;
}

export class AccountsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async create(
    a: {
      id: string;
      name: string;
      quota: number | null;
      budgets: Budget[];
      priceGroup: string | null;
      timeZone: string | null;
      expiresAt: number | null;
      weight?: number | null;
    },
    now = Date.now(),
  ): Promise<AccountRecord> {
    const row = {
      id: a.id,
      name: a.name,
      quota: a.quota,
      budgets: encodeBudgets(a.budgets),
      price_group: a.priceGroup,
      time_zone: a.timeZone,
      expires_at: a.expiresAt,
      revoked_at: null,
      weight: a.weight ?? null,
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('accounts').values(row).execute();
    return toAccountRecord({ ...row, spent: 0, held: 0 });
  }

  async get(id: string): Promise<AccountRecord | null> {
    const r = await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toAccountRecord(r) : null;
  }

  /** Oldest first, paged by (created_at, id) after `after`. */
  async list(limit: number, after?: { createdAt: number; id: string }): Promise<AccountRecord[]> {
    let q = this.db.selectFrom('accounts').selectAll();
    if (after)
      q = q.where((eb) =>
        eb.or([
          eb('created_at', '>', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)]),
        ]),
      );
    const rows = await q.orderBy('created_at', 'asc').orderBy('id', 'asc').limit(limit).execute();
    return rows.map(toAccountRecord);
  }

  /**
   * Change a live account only while its quota is still `quotaWas` (as tokens: an edit never undoes a top-up it did not
   * see).
   */
  async update(id: string, p: AccountPatch, quotaWas: number | null, now = Date.now()): Promise<boolean> {
    const set = {
      updated_at: now,
      ...(p.name !== undefined ? { name: p.name } : {}),
      ...(p.quota !== undefined ? { quota: p.quota } : {}),
      ...(p.budgets !== undefined ? { budgets: encodeBudgets(p.budgets) } : {}),
      ...(p.priceGroup !== undefined ? { price_group: p.priceGroup } : {}),
      ...(p.timeZone !== undefined ? { time_zone: p.timeZone } : {}),
      ...(p.expiresAt !== undefined ? { expires_at: p.expiresAt } : {}),
      ...(p.weight !== undefined ? { weight: p.weight } : {}),
    };
    const r = await this.db
      .updateTable('accounts')
      .set(set)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .where('quota', quotaWas === null ? 'is' : '=', quotaWas)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async revoke(id: string, now = Date.now()): Promise<boolean> {
    const r = await this.db
      .updateTable('accounts')
      .set({ revoked_at: now, updated_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** The ids of the account's tokens. */
  async tokenIds(id: string): Promise<string[]> {
    return (
      await this.db.selectFrom('tokens').select('id').where('account_id', '=', id).orderBy('created_at').execute()
    ).map((r) => r.id);
  }

  /** The names of these accounts (ids of no account are left out). */
  async names(ids: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const part of chunks(ids))
      for (const r of await this.db.selectFrom('accounts').select(['id', 'name']).where('id', 'in', part).execute())
        out.set(r.id, r.name);
    return out;
  }

  /** These accounts (ids of no account are left out). */
  async byIds(ids: string[]): Promise<Map<string, AccountRecord>> {
    const out = new Map<string, AccountRecord>();
    for (const part of chunks([...new Set(ids)]))
      for (const r of await this.db.selectFrom('accounts').selectAll().where('id', 'in', part).execute())
        out.set(r.id, toAccountRecord(r));
    return out;
  }

  /** The account each of these tokens belongs to now, with its name (tokens of no account are left out). */
  async ofTokens(tokenIds: string[]): Promise<Map<string, { id: string; name: string }>> {
    const out = new Map<string, { id: string; name: string }>();
    for (const part of chunks(tokenIds)) {
      const rows = await this.db
        .selectFrom('tokens')
        .innerJoin('accounts', 'accounts.id', 'tokens.account_id')
        .select(['tokens.id as token_id', 'accounts.id as account_id', 'accounts.name as name'])
        .where('tokens.id', 'in', part)
        .execute();
      for (const r of rows) out.set(r.token_id, { id: r.account_id, name: r.name });
    }
    return out;
  }

  /** The spend rows of `holder` in the periods starting at the given times. */
  async periodSpend(
    holder: string,
    periods: Array<{ period: string; start: number }>,
  ): Promise<Map<string, { spent: number; held: number }>> {
    const out = new Map<string, { spent: number; held: number }>();
    if (periods.length === 0) return out;
    const rows = await this.db
      .selectFrom('budget_spend')
      .select(['period', 'period_start', 'spent', 'held'])
      .where('holder_id', '=', holder)
      .where((eb) => eb.or(periods.map((p) => eb.and([eb('period', '=', p.period), eb('period_start', '=', p.start)]))))
      .execute();
    for (const r of rows)
      out.set(`${r.period}:${Number(r.period_start)}`, { spent: Number(r.spent), held: Number(r.held) });
    return out;
  }
}
