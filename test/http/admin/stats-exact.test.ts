// GET /admin/stats sums spend exactly, as bills do: two tokens' spends of 2^53 − 1 each add up to a JSON string of
// the exact digits, in the rolled-up buckets and in the open part of the window alike (rows written straight into the
// request log at chosen times).
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_BALANCE } from '../../../src/metering/balance-bound.ts';
import { useHarness } from '../../support/harness.ts';
import { chatLogRow, insertChatRows } from '../../support/store-rows.ts';

const t = useHarness();
const MIN = 60_000;
const TWICE = (2n * BigInt(MAX_BALANCE)).toString();

interface Stats {
  series: { spend: Array<number | string> };
  totals: { spend: number | string };
  top_models: Array<{ model: string | null; spend: number | string }>;
  top_tokens: Array<{ token_id: string | null; spend: number | string }>;
  top_accounts?: Array<{ account_id: string | null; spend: number | string }>;
}

let now = 0;
beforeAll(async () => {
  const a = (await t.h.token({ name: 'big-a' })).id;
  const b = (await t.h.token({ name: 'big-b' })).id;
  now = Date.now();
  await insertChatRows(t.h.store.db, [
    // Closed buckets (rolled up) …
    chatLogRow('req_big_1', a, 'm-big', 200, MAX_BALANCE, now - 10 * MIN),
    chatLogRow('req_big_2', b, 'm-big', 200, MAX_BALANCE, now - 10 * MIN),
    // … and the open part, read from the log.
    chatLogRow('req_big_3', a, 'm-big', 200, MAX_BALANCE, now - 5_000),
    chatLogRow('req_big_4', b, 'm-big', 200, MAX_BALANCE, now - 5_000),
  ]);
});

describe('GET /admin/stats sums exactly', () => {
  it('spend past 2^53 − 1 per bucket, per model and in total is given as its exact digits', async () => {
    const r = await t.h.admin('/admin/stats?window=1h&group_by=account');
    expect(r.status).toBe(200);
    const s = (await r.json()) as Stats;
    expect(s.series.spend.filter((x) => x !== 0)).toEqual([TWICE, TWICE]);
    expect(s.totals.spend).toBe((4n * BigInt(MAX_BALANCE)).toString());
    expect(s.top_models.find((m) => m.model === 'm-big')?.spend).toBe((4n * BigInt(MAX_BALANCE)).toString());
    expect(s.top_tokens.map((x) => x.spend)).toEqual([TWICE, TWICE]);
    expect(s.top_accounts?.map((x) => x.spend)).toEqual([(4n * BigInt(MAX_BALANCE)).toString()]);
  });
});
