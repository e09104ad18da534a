// GET /admin/stats: requests, errors and spend per time bucket and the top models and tokens, grouped by the store.
// Rows are written straight into the request log (and their charges into the ledger) at chosen times, so each
// bucket's expected figures are known.
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { chatLogRow, insertChatRows } from '../../support/store-rows.ts';

const t = useHarness();
const MIN = 60_000;

interface Stats {
  window: string;
  since: number;
  until: number;
  bucket_ms: number;
  series: { t: number[]; requests: number[]; errors: number[]; spend: number[] };
  totals: { requests: number; errors: number; spend: number };
  top_models: Array<{ model: string | null; requests: number; errors: number; spend: number }>;
  top_tokens: Array<{ token_id: string | null; name: string | null; requests: number; spend: number }>;
}

let now = 0;
let tokA = '';
let tokB = '';
let n = 0;
const row = (token: string, model: string, status: number, amount: number, createdAt: number) =>
  chatLogRow(`req_stats_${n++}`, token, model, status, amount, createdAt);

beforeAll(async () => {
  tokA = (await t.h.token({ name: 'stats-a' })).id;
  tokB = (await t.h.token({ name: 'stats-b' })).id;
  now = Date.now();
  await insertChatRows(t.h.store.db, [
    row(tokA, 'm-one', 200, 100, now - 5 * MIN),
    row(tokA, 'm-one', 200, 150, now - 5 * MIN),
    row(tokA, 'm-one', 502, 0, now - 5 * MIN),
    row(tokB, 'm-two', 200, 1000, now - 30 * MIN),
    row(tokB, 'm-two', 200, 7, now - 3 * 3600_000), // outside the hour, inside the day
    row(tokB, 'm-two', 200, 9, now - 40 * 86_400_000), // outside every window
  ]);
});

async function stats(window: string): Promise<Stats> {
  const r = await t.h.admin(`/admin/stats?window=${window}`);
  expect(r.status).toBe(200);
  return (await r.json()) as Stats;
}

describe('GET /admin/stats', () => {
  it('the last hour in one-minute buckets: each row in the bucket holding its time, errors counted by status', async () => {
    const s = await stats('1h');
    expect(s.bucket_ms).toBe(MIN);
    expect(s.series.t).toHaveLength(60);
    expect(s.until - s.since).toBe(3600_000);
    expect(s.since).toBeLessThanOrEqual(now - 3600_000 + MIN);
    expect(s.until).toBeGreaterThan(now);
    const at = (ms: number) => s.series.t.findIndex((b) => b <= ms && ms < b + MIN);
    expect(s.series.requests[at(now - 5 * MIN)]).toBe(3);
    expect(s.series.errors[at(now - 5 * MIN)]).toBe(1);
    expect(s.series.spend[at(now - 5 * MIN)]).toBe(250);
    expect(s.series.requests[at(now - 30 * MIN)]).toBe(1);
    expect(s.series.spend[at(now - 30 * MIN)]).toBe(1000);
    expect(s.totals).toEqual({ requests: 4, errors: 1, spend: 1250 });
    expect(s.top_models).toEqual([
      { model: 'm-one', requests: 3, errors: 1, spend: 250 },
      { model: 'm-two', requests: 1, errors: 0, spend: 1000 },
    ]);
    expect(s.top_tokens.map((x) => [x.name, x.requests, x.spend])).toEqual([
      ['stats-a', 3, 250],
      ['stats-b', 1, 1000],
    ]);
  });

  it('the day and 30 days take in the older rows, never the one 40 days ago', async () => {
    const day = await stats('24h');
    expect(day.series.t).toHaveLength(96);
    expect(day.totals).toEqual({ requests: 5, errors: 1, spend: 1257 });
    const month = await stats('30d');
    expect(month.series.t).toHaveLength(120);
    expect(month.totals.requests).toBe(5);
    expect(month.top_tokens[0]!.name).toBe('stats-a');
  });

  it('closed buckets are rolled up once and read from the rollup; the open part is read from the log', async () => {
    const before = await stats('1h');
    const marks = await t.h.store.db
      .selectFrom('request_stats_filled')
      .select('bucket')
      .where('bucket_ms', '=', MIN)
      .execute();
    // Every bucket that ended over two minutes ago is marked rolled up, none of the newer ones.
    expect(marks.length).toBeGreaterThanOrEqual(56);
    expect(Math.max(...marks.map((m) => Number(m.bucket))) * MIN).toBeLessThan(Date.now() - 2 * MIN);
    // A row now (the open part) counts at once...
    await insertChatRows(t.h.store.db, [row(tokB, 'm-two', 500, 3, Date.now())]);
    // ...and a row arriving late in a bucket already rolled up does not count as a request (the rollup is not read
    // again), while its charge does: money is read from the ledger itself.
    await insertChatRows(t.h.store.db, [row(tokB, 'm-two', 200, 5, now - 5 * MIN)]);
    const after = await stats('1h');
    expect(after.totals).toEqual({
      requests: before.totals.requests + 1,
      errors: before.totals.errors + 1,
      spend: before.totals.spend + 3 + 5,
    });
  });

  it('an unknown window is a clear 400; a client token is refused', async () => {
    const bad = await t.h.admin('/admin/stats?window=7y');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/window/);
    const { secret } = await t.h.token();
    expect((await t.h.fetch('/admin/stats', { token: secret })).status).toBe(403);
  });
});
