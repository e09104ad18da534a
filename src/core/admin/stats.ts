// The console overview's figures: requests, errors and spend over the last hour, day or 30 days in fixed buckets,
// and the busiest models and tokens, aggregated by the store (request-stats.ts). Spend here is what the request
// path computed per call (request_log.amount); the ledger stays the billing authority (bills).
import type { RequestStatsRepo } from '../../store/repos/request-stats.ts';
import type { LedgerRepo } from '../../store/repos/ledger.ts';

export const WINDOWS = {
  '1h': { spanMs: 3_600_000, bucketMs: 60_000 },
  '24h': { spanMs: 86_400_000, bucketMs: 900_000 },
  '30d': { spanMs: 30 * 86_400_000, bucketMs: 6 * 3_600_000 },
} as const;
export type StatsWindow = keyof typeof WINDOWS;

export interface StatsDeps {
  repos: { requestStats: RequestStatsRepo; ledger: Pick<LedgerRepo, 'tokenNames'> };
}

const TOP = 5;

export async function overviewStats(deps: StatsDeps, window: StatsWindow, now = Date.now()) {
  const { spanMs, bucketMs } = WINDOWS[window];
  // Whole buckets, the last one holding `now`.
  const until = (Math.floor(now / bucketMs) + 1) * bucketMs;
  const since = until - spanMs;
  const [rows, models, tokens] = await Promise.all([
    deps.repos.requestStats.buckets(since, until, bucketMs),
    deps.repos.requestStats.top('model', since, until, TOP),
    deps.repos.requestStats.top('token_id', since, until, TOP),
  ]);
  const n = spanMs / bucketMs;
  const first = since / bucketMs;
  const series = { t: Array.from({ length: n }, (_, i) => (first + i) * bucketMs), requests: new Array<number>(n).fill(0), errors: new Array<number>(n).fill(0), spend: new Array<number>(n).fill(0) };
  for (const r of rows) {
    const i = r.bucket - first;
    if (i < 0 || i >= n) continue;
    series.requests[i] = r.requests;
    series.errors[i] = r.errors;
    series.spend[i] = r.amount;
  }
  const names = await deps.repos.ledger.tokenNames(tokens.map((t) => t.key).filter((k): k is string => k !== null));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return {
    window,
    since,
    until,
    bucket_ms: bucketMs,
    series,
    totals: { requests: sum(series.requests), errors: sum(series.errors), spend: sum(series.spend) },
    top_models: models.map((m) => ({ model: m.key, requests: m.requests, errors: m.errors, spend: m.amount })),
    top_tokens: tokens.map((t) => ({ token_id: t.key, name: t.key ? (names.get(t.key) ?? null) : null, requests: t.requests, errors: t.errors, spend: t.amount })),
  };
}
