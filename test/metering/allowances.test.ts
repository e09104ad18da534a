// Allowances (src/metering/allowances.ts), at the meter on the dialect the harness picks: a busy token's calls
// reserve from one hold placed for many, their charges land exactly as reservations one by one would (token,
// account, budget rows, price group), what the allowance still holds goes back, instances never pass a quota
// together, and a new budget period takes a new allowance (the reaper and changes of terms: allowance-reaper.test.ts).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import type { AllowanceOptions } from '../../src/metering/allowances.ts';
import type { Billing } from '../../src/metering/billing.ts';
import { StoreMeter } from '../../src/metering/meter.ts';
import type { PriceGroup } from '../../src/pricing/price-groups.ts';
import type { SyncChargeInput } from '../../src/metering/types.ts';
import { AccountsRepo } from '../../src/store/repos/accounts.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import { useStore } from '../support/store.ts';

const fresh = useStore();
const catalogue = new Catalogue(DEFAULT_CATALOGUE);
const groups = new Map<string, PriceGroup>([
  ['half', { name: 'half', multiplierPpm: 500_000, prices: {}, createdAt: 0, updatedAt: 0 }],
]);
let clock = Date.UTC(2026, 4, 31, 23, 59, 50);
const busy: AllowanceOptions = {
  busyPerSecond: 0,
  maxCalls: 64,
  shareOf: 4,
  minCalls: 8,
  lifetimeMs: 30_000,
  idleMs: 60_000,
};
const meters: StoreMeter[] = [];
// An allowance that could not be placed or given back (a PostgreSQL deadlock, say) fails the test that caused it.
const allowanceErrors: unknown[] = [];
afterEach(() => expect(allowanceErrors.splice(0)).toEqual([]));
const meterWith = (allowances: AllowanceOptions | false) => {
  const m = new StoreMeter(fresh.store.db, () => catalogue, {
    batchWriter: fresh.store.batchWriter,
    priceGroups: groups,
    now: () => clock,
    allowances,
    onAllowanceError: (e) => allowanceErrors.push(e),
  });
  meters.push(m);
  return m;
};
afterAll(async () => {
  for (const m of meters) await m.releaseAllowances();
});

const ESTIMATE = 100_000;
let seq = 0;
const usage = { kind: 'tokens', inputTokens: 1000, outputTokens: 500 } as const; // qwx3.7-plus at list price
const input = (tokenId: string, requestId: string): SyncChargeInput => ({
  requestId,
  tokenId,
  model: 'qwx3.7-plus',
  billingModel: 'qwx3.7-plus',
  usage,
});

async function customer(quota: number | null, monthLimit: number, priceGroup: string | null = 'half') {
  const n = ++seq;
  const acc = await new AccountsRepo(fresh.store.db).create({
    id: `acc_al${n}`,
    name: `a${n}`,
    quota,
    budgets: [{ period: 'month', limit: monthLimit }],
    priceGroup,
    timeZone: null,
    expiresAt: null,
  });
  const tokenId = `tok_al${n}`;
  await new TokensRepo(fresh.store.db).create({
    id: tokenId,
    name: `t${n}`,
    secretHash: `h_${tokenId}`,
    prefix: 'tw-',
    models: null,
    quota: null,
    expiresAt: null,
    accountId: acc.id,
  });
  const billing: Billing = Object.freeze({
    accountId: acc.id,
    priceGroup,
    timeZone: null,
    budgets: Object.freeze([{ holderId: acc.id, period: 'month' as const, limit: monthLimit }]),
  });
  return { accountId: acc.id, tokenId, billing };
}

const num = (v: unknown) => Number(v);
async function balances(tokenId: string, accountId: string) {
  const db = fresh.store.db;
  const t = await db.selectFrom('tokens').select(['spent', 'held']).where('id', '=', tokenId).executeTakeFirstOrThrow();
  const a = await db
    .selectFrom('accounts')
    .select(['spent', 'held'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  const b = await db
    .selectFrom('budget_spend')
    .select(['period_start', 'spent', 'held'])
    .where('holder_id', '=', accountId)
    .orderBy('period_start')
    .execute();
  const ledger = await db
    .selectFrom('ledger')
    .select(['amount', 'list_amount', 'account_id'])
    .where('token_id', '=', tokenId)
    .execute();
  const open = await db
    .selectFrom('holds')
    .select(['hold_key', 'amount'])
    .where('token_id', '=', tokenId)
    .where('state', '=', 'held')
    .execute();
  return {
    token: [num(t.spent), num(t.held)],
    account: [num(a.spent), num(a.held)],
    budgets: b.map((r) => [num(r.period_start), num(r.spent), num(r.held)]),
    ledger,
    open: open.map((h) => ({ key: h.hold_key, amount: num(h.amount) })),
  };
}

/** `n` calls reserved at once, then each charged (half of them) or released. */
async function calls(
  meter: StoreMeter,
  c: Awaited<ReturnType<typeof customer>>,
  n: number,
  tag: string,
): Promise<number> {
  const ids = Array.from({ length: n }, (_, i) => `req_${tag}_${i}`);
  await Promise.all(ids.map((id) => meter.reserve(id, c.tokenId, ESTIMATE, c.billing)));
  let charged = 0;
  for (const [i, id] of ids.entries()) {
    if (i % 2 === 0) charged += await meter.settleReserved(input(c.tokenId, id));
    else await meter.releaseReserved(id);
  }
  await meter.flush();
  return charged;
}

describe('allowances', () => {
  beforeAll(() => {
    clock = Date.UTC(2026, 4, 31, 23, 59, 50);
  });

  it('a busy token reserves from one hold; charges land on token, account and budget at the group price; the rest goes back', async () => {
    const c = await customer(1_000_000_000, 1_000_000_000);
    const meter = meterWith(busy);
    const charged = await calls(meter, c, 30, 'a');
    const one = meter.price('qwx3.7-plus', usage, 'half');
    const list = meter.price('qwx3.7-plus', usage).amount;
    expect(charged).toBe(15 * one.amount);
    const during = await balances(c.tokenId, c.accountId);
    // One hold for the thirty calls: an allowance of 64 estimates, less what the charges used.
    expect(during.open).toEqual([{ key: expect.stringMatching(/^lease_/), amount: 64 * ESTIMATE - charged }]);
    expect(during.token).toEqual([charged, 64 * ESTIMATE - charged]);
    expect(during.account).toEqual([charged, 64 * ESTIMATE - charged]);
    expect(during.budgets).toEqual([[Date.UTC(2026, 4, 1), charged, 64 * ESTIMATE - charged]]);
    expect(during.ledger).toHaveLength(15);
    for (const l of during.ledger)
      expect([num(l.amount), num(l.list_amount), l.account_id]).toEqual([one.amount, list, c.accountId]);

    await meter.releaseAllowances();
    const after = await balances(c.tokenId, c.accountId);
    expect(after.open).toEqual([]);
    expect([after.token, after.account, after.budgets]).toEqual([
      [charged, 0],
      [charged, 0],
      [[Date.UTC(2026, 4, 1), charged, 0]],
    ]);
  });

  it('the same calls reserved one by one end in the same balances', async () => {
    const a = await customer(1_000_000_000, 1_000_000_000);
    const b = await customer(1_000_000_000, 1_000_000_000);
    const leased = meterWith(busy);
    const exact = meterWith(false);
    expect(await calls(leased, a, 20, 'same-a')).toBe(await calls(exact, b, 20, 'same-b'));
    await leased.releaseAllowances();
    const [x, y] = [await balances(a.tokenId, a.accountId), await balances(b.tokenId, b.accountId)];
    expect([x.token, x.account, x.budgets.map((r) => r.slice(1))]).toEqual([
      y.token,
      y.account,
      y.budgets.map((r) => r.slice(1)),
    ]);
    expect(y.open).toEqual([]);
  });

  it('two instances never reserve past the account quota together; near its end each call reserves on its own', async () => {
    const c = await customer(40 * ESTIMATE, 1_000_000_000);
    const [one, two] = [meterWith(busy), meterWith(busy)];
    const tries = Array.from({ length: 120 }, (_, i) => ({ meter: i % 2 ? one : two, id: `req_q_${i}` }));
    const admitted = (
      await Promise.allSettled(tries.map((t) => t.meter.reserve(t.id, c.tokenId, ESTIMATE, c.billing)))
    ).filter((r) => r.status === 'fulfilled').length;
    expect(admitted).toBeLessThanOrEqual(40);
    // Allowances take a share of the room, and below a few estimates calls reserve one by one: most of it is used.
    expect(admitted).toBeGreaterThanOrEqual(30);
    const b = await balances(c.tokenId, c.accountId);
    expect(b.account[1]).toBeLessThanOrEqual(40 * ESTIMATE);
    for (const t of tries) await t.meter.releaseReserved(t.id);
    await Promise.all([one.releaseAllowances(), two.releaseAllowances()]);
    expect((await balances(c.tokenId, c.accountId)).account).toEqual([0, 0]);
  });

  it('a new budget period takes a new allowance; the old one goes back when its last call ends', async () => {
    clock = Date.UTC(2026, 4, 31, 23, 59, 50);
    const c = await customer(null, 50 * ESTIMATE);
    const meter = meterWith(busy);
    await meter.reserve('req_p_1', c.tokenId, ESTIMATE, c.billing);
    clock = Date.UTC(2026, 5, 1, 0, 0, 5);
    await meter.reserve('req_p_2', c.tokenId, ESTIMATE, c.billing);
    const mid = await balances(c.tokenId, c.accountId);
    expect(mid.open).toHaveLength(2);
    expect(mid.budgets.map((r) => r[0])).toEqual([Date.UTC(2026, 4, 1), Date.UTC(2026, 5, 1)]);
    // Each allowance took a quarter of its own period's room.
    expect(mid.budgets.map((r) => r[2])).toEqual([12 * ESTIMATE + ESTIMATE / 2, 12 * ESTIMATE + ESTIMATE / 2]);
    const charge = await meter.settleReserved(input(c.tokenId, 'req_p_1'));
    await meter.settleReserved(input(c.tokenId, 'req_p_2'));
    await meter.flush();
    await expect.poll(async () => (await balances(c.tokenId, c.accountId)).open.length).toBe(1);
    const end = await balances(c.tokenId, c.accountId);
    // May's charge in May's row, nothing held there any more; June's allowance still open.
    expect(end.budgets[0]).toEqual([Date.UTC(2026, 4, 1), charge, 0]);
    expect(end.budgets[1]?.slice(0, 2)).toEqual([Date.UTC(2026, 5, 1), charge]);
  });
});

describe('not busy', () => {
  it('a token below the busy rate reserves call by call', async () => {
    const c = await customer(1_000_000_000, 1_000_000_000);
    const meter = meterWith({ ...busy, busyPerSecond: 20 });
    await calls(meter, c, 5, 'idle');
    const b = await balances(c.tokenId, c.accountId);
    expect(b.open).toEqual([]);
    expect(b.token[1]).toBe(0);
  });
});
