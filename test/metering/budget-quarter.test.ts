// "Adding a level is one change": a budget period the product does not have (a quarter) is added as one entry of
// the period calendars in src/metering/balances/rows.ts, and on the dialect the harness picks it holds, spends and
// releases like the others — by a task's hold, a call's reservation, an allowance and its queued charges (the batch
// writers' statements come from the same description), and its refusal names it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import { BUDGET_PERIOD_RULES, type PeriodRule } from '../../src/metering/balances/rows.ts';
import type { Billing } from '../../src/metering/billing.ts';
import { StoreMeter } from '../../src/metering/meter.ts';
import type { SyncChargeInput, TaskRef, Usage } from '../../src/metering/types.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import { useStore } from '../support/store.ts';

/** The one change: a calendar quarter (UTC here; the test needs no time zone). */
const quarter: PeriodRule = (now) => {
  const d = new Date(now);
  const m = Math.floor(d.getUTCMonth() / 3) * 3;
  return { start: Date.UTC(d.getUTCFullYear(), m, 1), end: Date.UTC(d.getUTCFullYear(), m + 3, 1) };
};
const periods = { ...BUDGET_PERIOD_RULES, quarter };

const fresh = useStore();
const catalogue = new Catalogue(DEFAULT_CATALOGUE);
const now = Date.UTC(2026, 4, 10, 12);
const Q2 = Date.UTC(2026, 3, 1);
const MAY = Date.UTC(2026, 4, 1);
const meters: StoreMeter[] = [];
const meterWith = (
  allowances:
    | false
    | {
        busyPerSecond: number;
        maxCalls: number;
        shareOf: number;
        minCalls: number;
        lifetimeMs: number;
        idleMs: number;
      },
) => {
  const m = new StoreMeter(fresh.store.db, () => catalogue, {
    batchWriter: fresh.store.batchWriter,
    now: () => now,
    budgetPeriods: periods,
    allowances,
  });
  meters.push(m);
  return m;
};
afterAll(async () => {
  for (const m of meters) {
    await m.releaseAllowances();
    await m.flush();
  }
});

const video: Usage = { kind: 'video', outputSeconds: 5, tier: '720p' }; // wnx2.7-t2v: 3,000,000 at list price
const M = 1_000_000;

async function token(id: string, quarterLimit: number): Promise<Billing> {
  await new TokensRepo(fresh.store.db).create({
    id,
    name: id,
    secretHash: `h_${id}`,
    prefix: 'tw-',
    models: null,
    quota: null,
    expiresAt: null,
  });
  return {
    accountId: null,
    priceGroup: null,
    timeZone: null,
    budgets: [
      { holderId: id, period: 'quarter', limit: quarterLimit },
      { holderId: id, period: 'month', limit: 1_000 * M },
    ],
  };
}

/** [spent, held] of the token, its quarter row and its month row. */
async function balances(id: string): Promise<number[][]> {
  const db = fresh.store.db;
  const tok = await db.selectFrom('tokens').select(['spent', 'held']).where('id', '=', id).executeTakeFirstOrThrow();
  const row = (period: string, start: number) =>
    db
      .selectFrom('budget_spend')
      .select(['spent', 'held'])
      .where('holder_id', '=', id)
      .where('period', '=', period)
      .where('period_start', '=', start)
      .executeTakeFirstOrThrow();
  return [tok, await row('quarter', Q2), await row('month', MAY)].map((x) => [Number(x.spent), Number(x.held)]);
}

describe('a quarter budget, added as one period calendar', () => {
  let meter: StoreMeter;
  beforeAll(() => {
    meter = meterWith(false);
  });

  it("holds, spends and releases a task's money on its quarter row, and refuses past its limit", async () => {
    const billing = await token('tok_q1', 10 * M);
    const ref = (taskId: string): TaskRef => ({
      taskId,
      tokenId: 'tok_q1',
      model: 'wnx2.7-t2v',
      billingModel: 'wnx2.7-t2v',
      billing,
    });
    expect(await meter.hold(ref('task_q1'), video)).toBe(3 * M);
    expect(await balances('tok_q1')).toEqual([
      [0, 3 * M],
      [0, 3 * M],
      [0, 3 * M],
    ]);
    expect(await meter.settle({ ...ref('task_q1'), billing: null }, video)).toBe(3 * M);
    expect(await meter.hold(ref('task_q2'), video)).toBe(3 * M);
    expect(await meter.hold(ref('task_q3'), video)).toBe(3 * M);
    // 3 spent + 6 held + 3 more passes the quarter's 10: refused, naming the quarter and when it starts again.
    await expect(meter.hold(ref('task_q4'), video)).rejects.toMatchObject({
      code: 'insufficient_quota',
      headers: { 'x-budget-period': 'quarter', 'x-budget-reset': '2026-07-01T00:00:00.000Z' },
    });
    expect(await meter.release(ref('task_q2'))).toBe(true);
    expect(await meter.release(ref('task_q3'))).toBe(true);
    expect(await balances('tok_q1')).toEqual([
      [3 * M, 0],
      [3 * M, 0],
      [3 * M, 0],
    ]);
  });

  it("a call's reservation lands on the quarter row, and its release gives it back", async () => {
    const billing = await token('tok_q2', 10 * M);
    const input: SyncChargeInput = {
      requestId: 'req_q2a',
      tokenId: 'tok_q2',
      model: 'wnx2.7-t2v',
      billingModel: 'wnx2.7-t2v',
      usage: video,
    };
    await meter.reserve('req_q2a', 'tok_q2', 4 * M, billing);
    await meter.reserve('req_q2b', 'tok_q2', 4 * M, billing);
    expect((await balances('tok_q2'))[1]).toEqual([0, 8 * M]);
    await expect(meter.reserve('req_q2c', 'tok_q2', 4 * M, billing)).rejects.toMatchObject({
      headers: { 'x-budget-period': 'quarter' },
    });
    expect(await meter.settleReserved(input)).toBe(3 * M);
    await meter.releaseReserved('req_q2b');
    expect(await balances('tok_q2')).toEqual([
      [3 * M, 0],
      [3 * M, 0],
      [3 * M, 0],
    ]);
  });

  it("an allowance holds on the quarter row; its queued charges spend there (the batch writer's path) and the rest goes back", async () => {
    const busy = meterWith({
      busyPerSecond: 0,
      maxCalls: 64,
      shareOf: 4,
      minCalls: 8,
      lifetimeMs: 30_000,
      idleMs: 60_000,
    });
    const billing = await token('tok_q3', 1_000 * M);
    for (let i = 0; i < 3; i++) {
      const requestId = `req_q3_${i}`;
      await busy.reserve(requestId, 'tok_q3', 3 * M, billing);
      // The allowance holds for many calls: more than this one on every row.
      if (i === 0) expect((await balances('tok_q3')).every(([, held]) => held! > 3 * M)).toBe(true);
      expect(
        busy.settleReserved({
          requestId,
          tokenId: 'tok_q3',
          model: 'wnx2.7-t2v',
          billingModel: 'wnx2.7-t2v',
          usage: video,
        }),
      ).toBe(3 * M);
    }
    await busy.flush();
    await busy.releaseAllowances();
    expect(await balances('tok_q3')).toEqual([
      [9 * M, 0],
      [9 * M, 0],
      [9 * M, 0],
    ]);
  });
});
