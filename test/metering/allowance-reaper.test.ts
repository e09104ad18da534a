// Allowances and the reaper (src/metering/reaper.ts), and allowances and changes of terms, at the meter on the dialect
// the harness picks: no reservation TTL, however short, reaps an allowance its instance still reserves from; an
// allowance still used past its staleness is renewed by its instance; one a stopped instance left is reaped; a change
// of terms during a placement leaves the new allowance unused. The sweep's timer is faked: it runs when a test says.
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import { ALLOWANCE_STALE_MS, type AllowanceOptions } from '../../src/metering/allowances.ts';
import type { Billing } from '../../src/metering/billing.ts';
import { StoreMeter } from '../../src/metering/meter.ts';
import type { PriceGroup } from '../../src/pricing/price-groups.ts';
import type { SyncChargeInput } from '../../src/metering/types.ts';
import { AccountsRepo } from '../../src/store/repos/accounts.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import { useStore } from '../support/store.ts';
import { until } from '../support/wait.ts';

const fresh = useStore();
const catalogue = new Catalogue(DEFAULT_CATALOGUE);
const groups = new Map<string, PriceGroup>([
  ['half', { name: 'half', multiplierPpm: 500_000, prices: {}, createdAt: 0, updatedAt: 0 }],
]);
let clock = Date.UTC(2026, 4, 10, 12);
const busy: AllowanceOptions = {
  busyPerSecond: 0,
  maxCalls: 64,
  shareOf: 4,
  minCalls: 8,
  lifetimeMs: 30_000,
  idleMs: 60_000,
};
const meters: StoreMeter[] = [];
const allowanceErrors: unknown[] = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
});
afterEach(() => {
  vi.useRealTimers();
  expect(allowanceErrors.splice(0)).toEqual([]);
});
afterAll(async () => {
  for (const m of meters) await m.releaseAllowances();
});
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

const usage = { kind: 'tokens', inputTokens: 1000, outputTokens: 500 } as const;
const input = (tokenId: string, requestId: string): SyncChargeInput => ({
  requestId,
  tokenId,
  model: 'qwx3.7-plus',
  billingModel: 'qwx3.7-plus',
  usage,
});
let seq = 0;

/** An account of `quota` (price group `half`) with `n` tokens. */
async function account(quota: number, n: number) {
  const id = `acc_ar${++seq}`;
  await new AccountsRepo(fresh.store.db).create({
    id,
    name: id,
    quota,
    budgets: [],
    priceGroup: 'half',
    timeZone: null,
    expiresAt: null,
  });
  const billing: Billing = Object.freeze({
    accountId: id,
    priceGroup: 'half',
    timeZone: null,
    budgets: Object.freeze([]),
  });
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) {
    const tokenId = `tok_ar${seq}x${i}`;
    await new TokensRepo(fresh.store.db).create({
      id: tokenId,
      name: tokenId,
      secretHash: `h_${tokenId}`,
      prefix: 'tw-',
      models: null,
      quota: null,
      expiresAt: null,
      accountId: id,
    });
    tokens.push(tokenId);
  }
  return { id, billing, tokens };
}

const openHolds = (tokenId: string) =>
  fresh.store.db
    .selectFrom('holds')
    .select(['hold_key', 'updated_at'])
    .where('token_id', '=', tokenId)
    .where('state', '=', 'held')
    .execute();
const accountRow = (id: string) =>
  fresh.store.db.selectFrom('accounts').select(['spent', 'held']).where('id', '=', id).executeTakeFirstOrThrow();
const admitted = async (p: Promise<void> | undefined) =>
  await Promise.resolve(p).then(
    () => true,
    () => false,
  );

describe('allowances and the reaper', () => {
  it('a 5 s reservation TTL does not reap the allowances of 8 busy tokens: with a ninth spending what is left, the account stays within its quota', async () => {
    const busyMeter = meterWith({ ...busy, maxCalls: 8, minCalls: 2 });
    const other = meterWith(false);
    const price = busyMeter.price('qwx3.7-plus', usage, 'half').amount;
    const quota = 100 * price;
    const acc = await account(quota, 9);
    const busyTokens = acc.tokens.slice(0, 8);
    const ninth = acc.tokens[8]!;
    const done: Array<{ tokenId: string; id: string }> = [];
    // Each busy token places its allowance (8 calls' estimates) and reserves its first call from it.
    for (const t of busyTokens) {
      expect(await admitted(busyMeter.reserve(`req_${t}_0`, t, price, acc.billing))).toBe(true);
      done.push({ tokenId: t, id: `req_${t}_0` });
    }
    clock += 6_000;
    await other.reapReservations(5_000);
    // The ninth token reserves what the account shows is left, call by call.
    for (let i = 0; ; i++) {
      if (!(await admitted(other.reserve(`req_${ninth}_${i}`, ninth, price, acc.billing)))) break;
      done.push({ tokenId: ninth, id: `req_${ninth}_${i}` });
    }
    // The busy tokens go on reserving from their allowances in memory.
    for (const t of busyTokens)
      for (let i = 1; i < 8; i++)
        if (await admitted(busyMeter.reserve(`req_${t}_${i}`, t, price, acc.billing)))
          done.push({ tokenId: t, id: `req_${t}_${i}` });
    for (const c of done) await (c.tokenId === ninth ? other : busyMeter).settleReserved(input(c.tokenId, c.id));
    await busyMeter.flush();
    await busyMeter.releaseAllowances();
    const row = await accountRow(acc.id);
    expect(Number(row.spent)).toBeLessThanOrEqual(quota);
    expect(Number(row.spent)).toBe(done.length * price);
    expect(Number(row.held)).toBe(0);
  });

  it('an allowance still used past its staleness is renewed by its instance and not reaped; its call is charged from it', async () => {
    const meter = meterWith(busy);
    const reaper = meterWith(false);
    const acc = await account(1_000_000_000, 1);
    const t = acc.tokens[0]!;
    await meter.reserve('req_long', t, 100_000, acc.billing);
    const [lease] = await openHolds(t);
    expect(lease?.hold_key).toMatch(/^lease_/);
    // A call longer than the allowance's staleness: the allowance is retired by its lifetime but still reserved.
    clock += ALLOWANCE_STALE_MS + 1;
    vi.advanceTimersByTime(1_000);
    await until(async () => Number((await openHolds(t))[0]?.updated_at) === clock, 'the allowance renewed');
    await reaper.reapReservations(5_000);
    expect((await openHolds(t)).map((h) => h.hold_key)).toEqual([lease!.hold_key]);
    const charged = await meter.settleReserved(input(t, 'req_long'));
    await meter.flush();
    await until(async () => (await openHolds(t)).length === 0, 'the allowance given back');
    const row = await accountRow(acc.id);
    expect([Number(row.spent), Number(row.held)]).toEqual([charged, 0]);
  });

  it('an allowance a stopped instance left is reaped; a charge from it afterwards lands without making held negative', async () => {
    const acc = await account(1_000_000_000, 1);
    const t = acc.tokens[0]!;
    const stopped = meterWith(busy);
    await stopped.reserve('req_r_1', t, 100_000, acc.billing);
    const reaper = meterWith(false);
    clock += ALLOWANCE_STALE_MS - 1;
    await reaper.reapReservations(3_600_000);
    expect(await openHolds(t)).toHaveLength(1);
    clock += 2;
    expect(await reaper.reapReservations(3_600_000)).toBeGreaterThanOrEqual(1);
    expect(await openHolds(t)).toEqual([]);
    const charge = await stopped.settleReserved(input(t, 'req_r_1'));
    await stopped.flush();
    const row = await accountRow(acc.id);
    expect([Number(row.spent), Number(row.held)]).toEqual([charge, 0]);
  });
});

describe('allowances and changes of terms', () => {
  it('a change during a placement leaves the new allowance unused and gives it back; the call reserves on its own', async () => {
    const meter = meterWith(busy);
    const acc = await account(1_000_000_000, 1);
    const t = acc.tokens[0]!;
    const reserving = meter.reserve('req_c_1', t, 100_000, acc.billing);
    meter.retireAllowances({ accountId: acc.id });
    await reserving;
    await until(async () => (await openHolds(t)).length === 1, 'the allowance placed meanwhile given back');
    expect((await openHolds(t)).map((h) => h.hold_key)).toEqual(['req_c_1']);
    expect(Number((await accountRow(acc.id)).held)).toBe(100_000);
  });

  it("a token's or its account's change retires the allowances it affects at once; the next call takes a new one", async () => {
    const meter = meterWith(busy);
    const acc = await account(1_000_000_000, 2);
    const [a, b] = acc.tokens as [string, string];
    await meter.reserve('req_t_a1', a, 100_000, acc.billing);
    await meter.reserve('req_t_b1', b, 100_000, acc.billing);
    meter.retireAllowances({ tokenId: a });
    // Token a's next call cannot be answered from memory; b's still is.
    const a2 = meter.reserve('req_t_a2', a, 100_000, acc.billing);
    expect(meter.reserve('req_t_b2', b, 100_000, acc.billing)).toBeUndefined();
    meter.retireAllowances({ accountId: acc.id });
    const b3 = meter.reserve('req_t_b3', b, 100_000, acc.billing);
    expect([a2, b3].map((p) => p instanceof Promise)).toEqual([true, true]);
    await Promise.all([a2, b3]);
    for (const id of ['req_t_a1', 'req_t_a2', 'req_t_b1', 'req_t_b2', 'req_t_b3']) await meter.releaseReserved(id);
    await meter.releaseAllowances();
    expect(Number((await accountRow(acc.id)).held)).toBe(0);
  });
});
