// A bill for an account follows the account's time zone, as its budgets do: its days split at that zone's midnight
// (a clock change included), its month is the budget's month, and weeks start on Monday; each line names its first
// and last days. On the store of the test run (SQLite, or PostgreSQL with TOLLWAY_TEST_DIALECT=postgres).
import { beforeAll, describe, expect, it } from 'vitest';
import type { BillByAccountView, BillView } from '../../../src/core/views.ts';
import { useHarness } from '../../support/harness.ts';

const t = useHarness();
const at = (iso: string) => Date.parse(iso);

async function json<T>(r: Response): Promise<T> {
  expect(r.status).toBe(200);
  return (await r.json()) as T;
}
const post = async <T>(path: string, body: unknown): Promise<T> =>
  (await t.h.admin(path, { method: 'POST', json: body })).json() as Promise<T>;

/** One charge of `amount` at `created` for the token, counted against its account. */
async function charge(key: string, tokenId: string, accountId: string, created: number, amount: number) {
  await t.h.store.db
    .insertInto('ledger')
    .values({
      idempotency_key: key,
      token_id: tokenId,
      account_id: accountId,
      model: 'text-embedding-v4',
      kind: 'tokens',
      quantities: '{}',
      unit_prices: '{}',
      amount,
      request_id: key,
      task_id: null,
      upstream_request_id: null,
      created_at: created,
    })
    .execute();
}

const lines = (b: BillView | BillByAccountView) =>
  b.data.map((l) => [l.period_start, l.first_day, l.last_day, Number(l.amount)]);

let tokyo = '';
let tokyoTok = '';
let la = '';

beforeAll(async () => {
  const budgets = [{ period: 'month', limit: 900_000_000 }];
  tokyo = (await post<{ id: string }>('/admin/accounts', { name: 'Tokyo', time_zone: 'Asia/Tokyo', budgets })).id;
  tokyoTok = (await post<{ id: string }>('/admin/tokens', { name: 'tokyo-token', account_id: tokyo })).id;
  la = (await post<{ id: string }>('/admin/accounts', { name: 'LA', time_zone: 'America/Los_Angeles' })).id;
  const laTok = (await post<{ id: string }>('/admin/tokens', { name: 'la-token', account_id: la })).id;
  // Tokyo is UTC+9: its 1 February starts at 15:00 UTC on 31 January.
  await charge('tk1', tokyoTok, tokyo, at('2026-01-31T14:59:59.999Z'), 1_000);
  await charge('tk2', tokyoTok, tokyo, at('2026-01-31T15:00:00Z'), 2_000);
  await charge('tk3', tokyoTok, tokyo, at('2026-02-01T10:00:00Z'), 4_000);
  // Los Angeles moves to summer time at 02:00 on Sunday 8 March 2026 (UTC-8, then UTC-7): that day has 23 hours.
  await charge('la1', laTok, la, at('2026-03-08T07:59:00Z'), 1); // 7 March, 23:59 PST
  await charge('la2', laTok, la, at('2026-03-08T09:30:00Z'), 10); // 8 March, 01:30 PST
  await charge('la3', laTok, la, at('2026-03-09T06:30:00Z'), 100); // 8 March, 23:30 PDT
  await charge('la4', laTok, la, at('2026-03-09T07:30:00Z'), 1_000); // 9 March (a Monday), 00:30 PDT
});

describe("a bill in the account's time zone", () => {
  it("splits days at the zone's midnight, not UTC's, whether asked by account or by its token", async () => {
    const byAccount = await json<BillByAccountView>(
      await t.h.admin(`/admin/bills?by=account&account_id=${tokyo}&period=day`),
    );
    expect(byAccount.time_zone).toBe('Asia/Tokyo');
    expect(lines(byAccount)).toEqual([
      ['2026-01-31', '2026-01-31', '2026-01-31', 1_000],
      ['2026-02-01', '2026-02-01', '2026-02-01', 6_000],
    ]);
    const byToken = await json<BillView>(await t.h.admin(`/admin/bills?token_id=${tokyoTok}&period=day`));
    expect(byToken.time_zone).toBe('Asia/Tokyo');
    expect(lines(byToken)).toEqual(lines(byAccount));
    // The same lines over the whole ledger, without an account: UTC days.
    const utc = await json<BillView>(await t.h.admin('/admin/bills?period=day&since=2026-01-31&until=2026-02-02'));
    expect(utc.time_zone).toBeNull();
    expect(utc.data.filter((l) => l.token_id === tokyoTok).map((l) => [l.period_start, l.amount])).toEqual([
      ['2026-01-31', 3_000],
      ['2026-02-01', 4_000],
    ]);
  });

  it('labels months with their first and last days in the zone', async () => {
    const month = await json<BillView>(await t.h.admin(`/admin/bills?token_id=${tokyoTok}&period=month`));
    expect(lines(month)).toEqual([
      ['2026-01', '2026-01-01', '2026-01-31', 1_000],
      ['2026-02', '2026-02-01', '2026-02-28', 6_000],
    ]);
  });

  it("has the budget's month: a charge now is on the bill line whose days are the budget's current period", async () => {
    await charge('tk-now', tokyoTok, tokyo, Date.now(), 7);
    const usage = await json<{ budgets: Array<{ period: string; period_start: number; resets_at: number }> }>(
      await t.h.admin(`/admin/accounts/${tokyo}/usage`),
    );
    const budget = usage.budgets.find((b) => b.period === 'month')!;
    // Tokyo keeps no summer time: its dates are UTC+9's.
    const tokyoDate = (ms: number) => new Date(ms + 9 * 3_600_000).toISOString().slice(0, 10);
    const bill = await json<BillView>(
      await t.h.admin(`/admin/bills?account_id=${tokyo}&period=month&since=${budget.period_start}`),
    );
    expect(bill.data.map((l) => [l.first_day, l.last_day, l.amount])).toEqual([
      [tokyoDate(budget.period_start), tokyoDate(budget.resets_at - 1), 7],
    ]);
  });

  it('keeps a 23-hour day (a clock change) whole, and cuts weeks on Monday', async () => {
    const day = await json<BillByAccountView>(await t.h.admin(`/admin/bills?by=account&account_id=${la}&period=day`));
    expect(day.time_zone).toBe('America/Los_Angeles');
    expect(day.data.map((l) => [l.period_start, l.amount])).toEqual([
      ['2026-03-07', 1],
      ['2026-03-08', 110],
      ['2026-03-09', 1_000],
    ]);
    const week = await json<BillByAccountView>(await t.h.admin(`/admin/bills?by=account&account_id=${la}&period=week`));
    expect(lines(week)).toEqual([
      ['2026-03-02', '2026-03-02', '2026-03-08', 111],
      ['2026-03-09', '2026-03-09', '2026-03-15', 1_000],
    ]);
  });
});
