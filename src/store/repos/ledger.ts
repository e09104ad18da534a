// Read side of metering: ledger entries and bill totals. Writes to the ledger happen only in
// src/metering/meter.ts (charges, where the exactly-once invariants live) and src/metering/top-up.ts (credit lines);
// request-log reads are in request-log.ts.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DayRun } from '../../vocabulary/budgets.ts';
import { addAmounts, sumText, type Amount } from '../../vocabulary/exact-amount.ts';
import { parseJson } from '../json.ts';
import { whereList, type TimeFilter } from '../keyset.ts';
import type { Database } from '../schema.ts';

export interface LedgerFilter extends TimeFilter {
  requestId?: string | undefined;
  taskId?: string | undefined;
  /** Only entries with id < beforeId (paging backwards). */
  beforeId?: number | undefined;
  limit: number;
}

export interface LedgerEntry {
  id: number;
  idempotency_key: string;
  token_id: string;
  model: string;
  kind: string;
  quantities: unknown;
  unit_prices: unknown;
  amount: number;
  request_id: string | null;
  task_id: string | null;
  upstream_request_id: string | null;
  created_at: number;
  /** What it cost upstream (micro-units), where its channel states a cost. */
  upstream_cost?: number;
}

/** Ledger totals of one token on one day (UTC, or local: dayTotals). */
export interface DayTotal {
  tokenId: string;
  model: string;
  /** Day number: days from 1970-01-01 in the bill's calendar (UTC: ms since epoch / 86,400,000). */
  day: number;
  /** Charges (credit lines are not charges). */
  entries: number;
  amount: Amount;
  /** The same charges at list price (a price group's lines count their list_amount). */
  listAmount: Amount;
  /** Credit lines (top-ups, kind `credit`): how many and their sum. */
  credits: number;
  credit: Amount;
  /** Charges that recorded their upstream cost (migration 040): how many, their amount and that cost; absent: none. */
  costed?: number;
  costedAmount?: Amount;
  upstreamCost?: Amount;
}

/** Ledger totals of one account (null: lines that count against no account) on one UTC day. */
export interface AccountDayTotal extends Omit<DayTotal, 'tokenId'> {
  accountId: string | null;
}

/** A bill's filter: who, what, when, and the account the lines counted against. */
export interface BillFilter extends TimeFilter {
  accountId?: string | undefined;
}

export const DAY_MS = 86_400_000;

/**
 * The sums of a bill line: charges (their count, amount and amount at list price) apart from credit lines (top-ups,
 * their count and amount) — a bill's amount is what was spent. Sums are read as text (exact-amount.ts).
 */
function billSums() {
  const credit = sql`kind = ${sql.lit('credit')}`;
  return [
    sql<number>`count(case when ${credit} then null else 1 end)`.as('entries'),
    sumText(sql`case when ${credit} then 0 else amount end`).as('amount'),
    sumText(sql`case when ${credit} then 0 else coalesce(list_amount, amount) end`).as('list_amount'),
    sql<number>`count(case when ${credit} then 1 else null end)`.as('credits'),
    sumText(sql`case when ${credit} then amount else 0 end`).as('credit'),
    sql<number>`count(case when ${credit} then null else upstream_cost end)`.as('costed'),
    sumText(sql`case when ${credit} or upstream_cost is null then 0 else amount end`).as('costed_amount'),
    sumText(sql`case when ${credit} or upstream_cost is null then 0 else upstream_cost end`).as('upstream_cost'),
  ] as const;
}

export class LedgerRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async list(f: LedgerFilter): Promise<LedgerEntry[]> {
    let q = whereList(this.db.selectFrom('ledger').selectAll(), 'ledger', {
      ...f,
      equal: { request_id: f.requestId, task_id: f.taskId },
    });
    // The ledger pages by its id alone: ids grow with every line, so no two lines share a place.
    if (f.beforeId !== undefined) q = q.where('id', '<', f.beforeId);
    const rows = await q.orderBy('id', 'desc').limit(f.limit).execute();
    return rows.map((r) => ({
      id: Number(r.id),
      idempotency_key: r.idempotency_key,
      token_id: r.token_id,
      model: r.model,
      kind: r.kind,
      quantities: parseJson(r.quantities),
      unit_prices: parseJson(r.unit_prices),
      amount: Number(r.amount),
      request_id: r.request_id,
      task_id: r.task_id,
      upstream_request_id: r.upstream_request_id,
      created_at: Number(r.created_at),
      ...(r.upstream_cost !== null && r.upstream_cost !== undefined ? { upstream_cost: Number(r.upstream_cost) } : {}),
    }));
  }

  /**
   * Ledger totals per token, model and day, computed in the database (integer division of the ms timestamp is the
   * same in both dialects): UTC days, or the local days of `runs` (metering/periods.ts dayRuns, within `f`'s range).
   * Weeks and months are folded from days by the caller.
   */
  async dayTotals(f: BillFilter, runs?: readonly DayRun[]): Promise<DayTotal[]> {
    const rows = await this.totalsByDay('token_id', f, runs);
    return rows.map(({ holder, ...t }) => ({ tokenId: holder as string, ...t }));
  }

  /**
   * Ledger totals per account, model and day (as dayTotals): the account each line counted against when it was
   * written (a token's later move to another account leaves its past where it was); null for lines of no account.
   */
  async accountDayTotals(f: BillFilter, runs?: readonly DayRun[]): Promise<AccountDayTotal[]> {
    return (await this.totalsByDay('account_id', f, runs)).map(({ holder, ...t }) => ({ accountId: holder, ...t }));
  }

  /** The times of the first and last lines `f` selects, as [since, until); null when there are none. */
  async span(f: BillFilter): Promise<{ since: number; until: number } | null> {
    const q = this.db
      .selectFrom('ledger')
      .select([sql<number | null>`min(created_at)`.as('first'), sql<number | null>`max(created_at)`.as('last')]);
    const r = await whereList(q, 'ledger', { ...f, equal: { account_id: f.accountId } }).executeTakeFirst();
    if (r?.first === null || r?.first === undefined || r.last === null) return null;
    return { since: Number(r.first), until: Number(r.last) + 1 };
  }

  private async totalsByDay(
    by: 'token_id' | 'account_id',
    f: BillFilter,
    runs: readonly DayRun[] | undefined,
  ): Promise<Array<Omit<DayTotal, 'tokenId'> & { holder: string | null }>> {
    // A literal (not a bound parameter) so PostgreSQL sees the same expression in SELECT and GROUP BY.
    if (!runs) return this.totalsOn(by, f, sql<number>`created_at / ${sql.lit(DAY_MS)}`);
    const out = [];
    for (const r of runs) {
      const day = r.offset === null ? r.first : sql<number>`(created_at + ${sql.lit(r.offset)}) / ${sql.lit(DAY_MS)}`;
      out.push(...(await this.totalsOn(by, { ...f, since: r.since, until: r.until }, day)));
    }
    return out;
  }

  /** The bill sums of the lines `f` selects, per holder (`by`: the token or the account column), model and `day`. */
  private async totalsOn(
    by: 'token_id' | 'account_id',
    f: BillFilter,
    day: RawBuilder<number> | number,
  ): Promise<Array<Omit<DayTotal, 'tokenId'> & { holder: string | null }>> {
    const holder = sql.ref<string | null>(by);
    // A day of its own (a run of one day): one number, not a column of the grouping.
    const dayCol = typeof day === 'number' ? sql<number>`${sql.lit(day)}` : day;
    const q = this.db.selectFrom('ledger').select([holder.as('holder'), 'model', dayCol.as('day'), ...billSums()]);
    const rows = await whereList(q, 'ledger', { ...f, equal: { account_id: f.accountId } })
      .groupBy(typeof day === 'number' ? [holder, 'model'] : [holder, 'model', day])
      .execute();
    // Sums read as text (exact-amount.ts): a day's lines of one token can sum past 2^53 (credits are not bounded).
    return rows.map((r) => ({
      holder: r.holder,
      model: r.model,
      day: Math.floor(Number(r.day)),
      entries: Number(r.entries),
      amount: addAmounts(r.amount),
      listAmount: addAmounts(r.list_amount),
      credits: Number(r.credits),
      credit: addAmounts(r.credit),
      ...(Number(r.costed) > 0
        ? {
            costed: Number(r.costed),
            costedAmount: addAmounts(r.costed_amount),
            upstreamCost: addAmounts(r.upstream_cost),
          }
        : {}),
    }));
  }

  /**
   * An account's charges per model over [since, until): lines, amount charged, amount at list price; and its credits.
   */
  async accountTotals(
    accountId: string,
    since: number,
    until: number,
  ): Promise<{
    models: Array<{ model: string; entries: number; amount: Amount; listAmount: Amount }>;
    credit: Amount;
  }> {
    const rows = await this.db
      .selectFrom('ledger')
      .select(['model', ...billSums()])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since)
      .where('created_at', '<', until)
      .groupBy('model')
      .execute();
    const models = rows
      .filter((r) => Number(r.entries) > 0)
      .map((r) => ({
        model: r.model,
        entries: Number(r.entries),
        amount: addAmounts(r.amount),
        listAmount: addAmounts(r.list_amount),
      }));
    return {
      models: models.sort((a, b) => a.model.localeCompare(b.model)),
      credit: addAmounts(...rows.map((r) => r.credit)),
    };
  }

  async tokenNames(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('tokens').select(['id', 'name']).where('id', 'in', ids).execute();
    return new Map(rows.map((r) => [r.id, r.name]));
  }
}
