// A task's hold for a token of an account with budgets, at the meter (on the dialect the harness picks): the hold
// moves held on token, account and budget row together; its settlement moves spent on the same rows at the price
// group recorded with the hold; a release gives everything back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import type { Billing } from '../../src/metering/billing.ts';
import { StoreMeter } from '../../src/metering/meter.ts';
import type { PriceGroup } from '../../src/pricing/price-groups.ts';
import type { TaskRef, Usage } from '../../src/metering/types.ts';
import { AccountsRepo } from '../../src/store/repos/accounts.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import { useStore } from '../support/store.ts';

const fresh = useStore();
const catalogue = new Catalogue(DEFAULT_CATALOGUE);
const groups = new Map<string, PriceGroup>();
const now = Date.UTC(2026, 4, 10, 12);
let meter: StoreMeter;
beforeAll(() => {
  meter = new StoreMeter(fresh.store.db, () => catalogue, {
    batchWriter: fresh.store.batchWriter,
    priceGroups: groups,
    now: () => now,
  });
});
afterAll(async () => meter?.flush());

const estimate: Usage = { kind: 'video', outputSeconds: 5, tier: '720p' }; // wnx2.7-t2v: 3,000,000 at list price
const rows = async (tokenId: string, accountId: string) => ({
  token: await fresh.store.db
    .selectFrom('tokens')
    .select(['spent', 'held'])
    .where('id', '=', tokenId)
    .executeTakeFirstOrThrow(),
  account: await fresh.store.db
    .selectFrom('accounts')
    .select(['spent', 'held'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow(),
  budget: await fresh.store.db
    .selectFrom('budget_spend')
    .select(['spent', 'held'])
    .where('holder_id', '=', accountId)
    .executeTakeFirstOrThrow(),
});
const nums = (r: Awaited<ReturnType<typeof rows>>) =>
  [r.token, r.account, r.budget].map((x) => [Number(x.spent), Number(x.held)]);

describe('task holds of an account token', () => {
  it('hold → settle at the recorded group; hold → release gives all back; a hold past the budget is refused', async () => {
    groups.set('g', { name: 'g', multiplierPpm: 500_000, prices: {}, createdAt: 0, updatedAt: 0 });
    const acc = await new AccountsRepo(fresh.store.db).create({
      id: 'acc_h1',
      name: 'a',
      quota: 10_000_000,
      budgets: [{ period: 'month', limit: 4_000_000 }],
      priceGroup: 'g',
      timeZone: null,
      expiresAt: null,
    });
    await new TokensRepo(fresh.store.db).create({
      id: 'tok_h1',
      name: 't',
      secretHash: 'h_tok_h1',
      prefix: 'tw-',
      models: null,
      quota: null,
      expiresAt: null,
      accountId: acc.id,
    });
    const billing: Billing = {
      accountId: acc.id,
      priceGroup: 'g',
      timeZone: null,
      budgets: [{ holderId: acc.id, period: 'month', limit: 4_000_000 }],
    };
    const ref = (taskId: string): TaskRef => ({
      taskId,
      tokenId: 'tok_h1',
      model: 'wnx2.7-t2v',
      billingModel: 'wnx2.7-t2v',
      billing,
    });
    expect(await meter.hold(ref('task_h1'), estimate)).toBe(1_500_000);
    expect(nums(await rows('tok_h1', acc.id))).toEqual([
      [0, 1_500_000],
      [0, 1_500_000],
      [0, 1_500_000],
    ]);
    // The settlement (the poller's: no billing on its ref) reads the account and group from the hold.
    expect(await meter.settle({ ...ref('task_h1'), billing: null }, estimate)).toBe(1_500_000);
    groups.set('g', { name: 'g', multiplierPpm: 2_000_000, prices: {}, createdAt: 0, updatedAt: 1 });
    expect(nums(await rows('tok_h1', acc.id))).toEqual([
      [1_500_000, 0],
      [1_500_000, 0],
      [1_500_000, 0],
    ]);
    const line = await fresh.store.db
      .selectFrom('ledger')
      .select(['amount', 'list_amount', 'account_id'])
      .where('task_id', '=', 'task_h1')
      .executeTakeFirstOrThrow();
    expect([Number(line.amount), Number(line.list_amount), line.account_id]).toEqual([1_500_000, 3_000_000, acc.id]);
    // At ×2 a 5 s video holds 6,000,000: more than the month's budget has left (2,500,000).
    await expect(meter.hold(ref('task_h2'), estimate)).rejects.toMatchObject({
      code: 'insufficient_quota',
      headers: { 'x-budget-reset': '2026-06-01T00:00:00.000Z', 'x-budget-period': 'month' },
    });
    expect(nums(await rows('tok_h1', acc.id))).toEqual([
      [1_500_000, 0],
      [1_500_000, 0],
      [1_500_000, 0],
    ]);
    groups.set('g', { name: 'g', multiplierPpm: 100_000, prices: {}, createdAt: 0, updatedAt: 2 });
    expect(await meter.hold(ref('task_h3'), estimate)).toBe(300_000);
    expect(await meter.release(ref('task_h3'))).toBe(true);
    expect(nums(await rows('tok_h1', acc.id))).toEqual([
      [1_500_000, 0],
      [1_500_000, 0],
      [1_500_000, 0],
    ]);
  });
});
