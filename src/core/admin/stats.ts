// The console overview's figures: requests, errors and spend over the last hour, day or 30 days in fixed buckets,
// and the busiest models and tokens. Buckets that ended more than SETTLE_MS ago are read from the store's rollup
// (request-stats.ts), the rest from the request log. Spend is the ledger's: every charge written in the window
// (calls, images, video tasks settled later, whatever their kind; not credits), summed exactly as bills are
// (exact-amount.ts), so the overview's money is the bills' money.
import { qEnum, qOnly, type Query } from '../../contracts/query.ts';
import {
  mergeFigures,
  type RangeFigures,
  type RequestStatsRepo,
  type Totals,
} from '../../store/repos/request-stats.ts';
import type { LedgerStatsRepo, SpendFigures } from '../../store/repos/ledger-stats.ts';
import type { LedgerRepo } from '../../store/repos/ledger.ts';
import type { AccountsRepo } from '../../store/repos/accounts.ts';
import { topAccounts } from './account-stats.ts';
import { amountOf, type Amount } from '../../vocabulary/exact-amount.ts';
import { compareDown } from './stats-order.ts';

export const WINDOWS = {
  '1h': { spanMs: 3_600_000, bucketMs: 60_000 },
  '24h': { spanMs: 86_400_000, bucketMs: 900_000 },
  '30d': { spanMs: 30 * 86_400_000, bucketMs: 6 * 3_600_000 },
} as const;
export type StatsWindow = keyof typeof WINDOWS;
export type StatsGrouping = 'token' | 'account';

/**
 * The parameters of GET /admin/stats and `tollway stats`: `window` (default 24h) and `group_by` (default token),
 * nothing else.
 */
export function statsQuery(q: Query): { window: StatsWindow; groupBy: StatsGrouping } {
  qOnly(q, ['window', 'group_by']);
  return {
    window: qEnum(q, 'window', Object.keys(WINDOWS) as StatsWindow[], '24h'),
    groupBy: qEnum(q, 'group_by', ['token', 'account'] as const, 'token'),
  };
}

/**
 * A bucket is rolled up once it ended this long ago: request-log rows are group-committed within milliseconds of
 * their time, so a row reaching the store later than this (a store outage while it was queued) is in the request
 * log and the bills but not in an overview bucket already rolled up.
 */
export const SETTLE_MS = 120_000;

export interface StatsDeps {
  repos: {
    requestStats: RequestStatsRepo;
    ledgerStats: Pick<LedgerStatsRepo, 'spend'>;
    ledger: Pick<LedgerRepo, 'tokenNames'>;
    accounts: Pick<AccountsRepo, 'ofTokens'>;
  };
}

const TOP = 5;

function top(m: Map<string, Totals>): Array<[string, Totals]> {
  return [...m]
    .sort((a, b) => b[1].requests - a[1].requests || compareDown(a[1].amount, b[1].amount) || (a[0] < b[0] ? -1 : 1))
    .slice(0, TOP);
}

/** The request log's counts with the ledger's money: each key's amount replaced by its charges in the window. */
function withLedgerSpend(f: RangeFigures, spend: SpendFigures): RangeFigures {
  const put = <K>(m: Map<K, Totals>, from: Map<K, bigint>) => {
    for (const t of m.values()) t.amount = 0n;
    for (const [k, v] of from) {
      const t = m.get(k);
      if (t) t.amount = v;
      else m.set(k, { requests: 0, errors: 0, amount: v });
    }
  };
  put(f.buckets, spend.buckets);
  put(f.models, spend.models);
  put(f.tokens, spend.tokens);
  return f;
}

/** `groupBy` account: the busiest accounts too (`top_accounts`). */
export async function overviewStats(
  deps: StatsDeps,
  window: StatsWindow,
  now = Date.now(),
  groupBy: StatsGrouping = 'token',
) {
  const { spanMs, bucketMs } = WINDOWS[window];
  // Whole buckets, the last one holding `now`.
  const until = (Math.floor(now / bucketMs) + 1) * bucketMs;
  const since = until - spanMs;
  const n = spanMs / bucketMs;
  const first = since / bucketMs;
  const closedEnd = Math.min(first + n, Math.max(first, Math.floor((now - SETTLE_MS) / bucketMs)));
  const stats = deps.repos.requestStats;
  const ledger = await deps.repos.ledgerStats.spend(since, until, bucketMs);
  const figures = withLedgerSpend(
    mergeFigures(
      await stats.closed(bucketMs, first, closedEnd),
      await stats.live(closedEnd * bucketMs, until, bucketMs),
    ),
    ledger,
  );
  const series = {
    t: Array.from({ length: n }, (_, i) => (first + i) * bucketMs),
    requests: new Array<number>(n).fill(0),
    errors: new Array<number>(n).fill(0),
    spend: new Array<Amount>(n).fill(0),
  };
  let spend = 0n;
  for (const [b, t] of figures.buckets) {
    const i = b - first;
    if (i < 0 || i >= n) continue;
    series.requests[i] = t.requests;
    series.errors[i] = t.errors;
    series.spend[i] = amountOf(t.amount);
    spend += t.amount;
  }
  const tokens = top(figures.tokens);
  const names = await deps.repos.ledger.tokenNames(tokens.map(([k]) => k).filter((k) => k !== ''));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return {
    window,
    since,
    until,
    bucket_ms: bucketMs,
    series,
    totals: { requests: sum(series.requests), errors: sum(series.errors), spend: amountOf(spend) },
    spend_by_kind: Object.fromEntries([...ledger.kinds].sort().map(([k, v]) => [k, amountOf(v)])),
    top_models: top(figures.models).map(([k, t]) => ({
      model: k || null,
      requests: t.requests,
      errors: t.errors,
      spend: amountOf(t.amount),
    })),
    top_tokens: tokens.map(([k, t]) => ({
      token_id: k || null,
      name: k ? (names.get(k) ?? null) : null,
      requests: t.requests,
      errors: t.errors,
      spend: amountOf(t.amount),
    })),
    ...(groupBy === 'account' ? { top_accounts: await topAccounts(deps.repos.accounts, figures.tokens, TOP) } : {}),
  };
}
