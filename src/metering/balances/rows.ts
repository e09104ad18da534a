// The rows a call's money lands on, declared once: the token, its account if it has one, and each budget's row of
// its current period. Every walk over them (room, hold, spend, release: balances/moves.ts; the SQLite batch
// statements: balances/sqlite-moves.ts; the set-wise batch: batch-spend.ts) loops over the levels and rows below,
// so a new level or a new budget period is one change here.
import type { Billing } from '../billing.ts';
import { periodBounds } from '../periods.ts';

/** One kind of row money lands on: its table, its key columns (and their SQL types), and how its limit is kept. */
export interface Level {
  readonly name: 'token' | 'account' | 'budget';
  readonly table: 'tokens' | 'accounts' | 'budget_spend';
  readonly keys: readonly string[];
  readonly keyTypes: ReadonlyArray<'text' | 'bigint'>;
  /** Its limit is the row's own `quota` column (null: none); else the limit the billing names (a budget's). */
  readonly quotaColumn: boolean;
  /** The token's charges still queued count against this row (they are the token's). */
  readonly countsQueued: boolean;
  /** The row is made by the first hold on it (a budget period's); else a missing row has no room. */
  readonly madeOnHold: boolean;
  /**
   * Its spent + held is a part of its holder's (the token's or the account's): every move on it moves the holder's
   * row too, and nothing lowers `spent`. The holder's balance bound bounds it, so a batch writer reads no room for it.
   */
  readonly partOfHolder: boolean;
}

export const TOKEN: Level = {
  name: 'token',
  table: 'tokens',
  keys: ['id'],
  keyTypes: ['text'],
  quotaColumn: true,
  countsQueued: true,
  madeOnHold: false,
  partOfHolder: false,
};
export const ACCOUNT: Level = {
  name: 'account',
  table: 'accounts',
  keys: ['id'],
  keyTypes: ['text'],
  quotaColumn: true,
  countsQueued: false,
  madeOnHold: false,
  partOfHolder: false,
};
export const BUDGET: Level = {
  name: 'budget',
  table: 'budget_spend',
  keys: ['holder_id', 'period', 'period_start'],
  keyTypes: ['text', 'text', 'bigint'],
  quotaColumn: false,
  countsQueued: false,
  madeOnHold: true,
  partOfHolder: true,
};
/** Every level, in the order a write locks them after the token (holds, then accounts, then budget rows). */
export const LEVELS: readonly Level[] = [TOKEN, ACCOUNT, BUDGET];
export const LEVEL_BY_NAME: Readonly<Record<Level['name'], Level>> = { token: TOKEN, account: ACCOUNT, budget: BUDGET };

/** The bounds [start, end) of the period holding `now`, in time zone `tz` (null: UTC). */
export type PeriodRule = (now: number, tz: string | null) => { start: number; end: number };

/** The budget periods and their calendars: a new period is one entry. */
export const BUDGET_PERIOD_RULES: Readonly<Record<string, PeriodRule>> = {
  day: (now, tz) => periodBounds('day', now, tz),
  week: (now, tz) => periodBounds('week', now, tz),
  month: (now, tz) => periodBounds('month', now, tz),
};

/** One row money lands on: its level, its key values, and (a budget's, at a hold) its limit and period end. */
export interface BalanceRow {
  readonly level: Level;
  readonly key: ReadonlyArray<string | number>;
  /** A budget's limit; null for a level whose limit is its own `quota` column, or when not known (after the hold). */
  readonly limit: number | null;
  /** When a budget's period ends (ms); Infinity for the token and the account. */
  readonly end: number;
}

const row = (
  level: Level,
  key: ReadonlyArray<string | number>,
  limit: number | null = null,
  end = Infinity,
): BalanceRow => ({ level, key, limit, end });

/**
 * The rows a call of `tokenId` billed by `billing` lands on at `now`: the token, its account, its budgets' current
 * periods.
 */
export function rowsOf(
  tokenId: string,
  billing: Billing | null,
  now: number,
  periods: Readonly<Record<string, PeriodRule>> = BUDGET_PERIOD_RULES,
): BalanceRow[] {
  const rows = [row(TOKEN, [tokenId])];
  if (billing === null) return rows;
  if (billing.accountId !== null) rows.push(row(ACCOUNT, [billing.accountId]));
  for (const b of billing.budgets) {
    const rule = periods[b.period];
    if (rule === undefined) throw new Error(`no calendar for budget period ${b.period}`);
    const { start, end } = rule(now, billing.timeZone);
    rows.push(row(BUDGET, [b.holderId, b.period, start], b.limit, end));
  }
  return rows;
}

/** Where a hold's money moves, as its row keeps it (holds: account_id, budget_rows). */
export interface HoldTarget {
  tokenId: string;
  accountId: string | null;
  priceGroup: string | null;
  budgetRows: BudgetRowKey[];
}

/** A budget row a hold reserved against: [holder id, period, period start (ms)]. */
export type BudgetRowKey = [string, string, number];

/** The target of a charge of a token of no account nor budget: its token's row alone. */
export const tokenAlone = (tokenId: string): HoldTarget => ({
  tokenId,
  accountId: null,
  priceGroup: null,
  budgetRows: [],
});

/** The target a hold on `rows` keeps. */
export function targetOfRows(rows: readonly BalanceRow[], priceGroup: string | null): HoldTarget {
  let accountId: string | null = null;
  const budgetRows: BudgetRowKey[] = [];
  for (const r of rows) {
    if (r.level === ACCOUNT) accountId = r.key[0] as string;
    else if (r.level === BUDGET) budgetRows.push(r.key as BudgetRowKey);
  }
  return { tokenId: rows[0]!.key[0] as string, accountId, priceGroup, budgetRows };
}

/** The rows a hold's target names (limits not kept: a move or a bound needs none). */
export function rowsOfTarget(t: HoldTarget): BalanceRow[] {
  const rows = [row(TOKEN, [t.tokenId])];
  if (t.accountId !== null) rows.push(row(ACCOUNT, [t.accountId]));
  for (const k of t.budgetRows) rows.push(row(BUDGET, k));
  return rows;
}

/**
 * The rows past the token as the SQLite batch writer takes them (a structured clone crosses to its thread): each
 * row's level name then its key values, one after the other.
 */
export function flatRows(t: HoldTarget): Array<string | number> {
  const out: Array<string | number> = [];
  for (const r of rowsOfTarget(t)) if (r.level !== TOKEN) out.push(r.level.name, ...r.key);
  return out;
}
