// No stored balance passes MAX_BALANCE (2^53 − 1): a charge that would take a token's or account's spent past it is
// cut to what is left, so `spent` stays an exact JS number and equals the ledger's sum, on every write path
// (chargeSync, the deferred batch through Kysely and through the SQLite batch writer, a reserved call's settle).
// Runs on the dialect the harness picks (TOLLWAY_TEST_DIALECT=postgres for PostgreSQL).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import { MAX_BALANCE } from '../../src/metering/balance-bound.ts';
import { ALLOWANCE_DEFAULTS } from '../../src/metering/allowances.ts';
import { StoreMeter } from '../../src/metering/meter.ts';
import { MAX_CHARGE } from '../../src/pricing/prices.ts';
import type { LedgerRow } from '../../src/metering/ledger-row.ts';
import { AccountsRepo } from '../../src/store/repos/accounts.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import { sqliteFileStore, testDialect, useStore } from '../support/store.ts';

const fresh = useStore();
const catalogue = new Catalogue(DEFAULT_CATALOGUE);
let seq = 0;
let batched: StoreMeter;
let kysely: StoreMeter;
const clamped: LedgerRow[] = [];

beforeAll(() => {
  const onClamped = (r: LedgerRow) => void clamped.push(r);
  batched = new StoreMeter(fresh.store.db, () => catalogue, {
    batchWriter: fresh.store.batchWriter,
    flushIntervalMs: 2,
    onClamped,
  });
  kysely = new StoreMeter(fresh.store.db, () => catalogue, { batchWriter: null, flushIntervalMs: 2, onClamped });
});
afterAll(async () => {
  await batched?.flush();
  await kysely?.flush();
});

/** A token whose spent is already `spent` (a balance near the bound). */
async function tokenAt(spent: number): Promise<string> {
  const id = `tok_b${++seq}`;
  await new TokensRepo(fresh.store.db).create({
    id,
    name: id,
    secretHash: `h_${id}`,
    prefix: 'tw-test',
    models: null,
    quota: null,
    expiresAt: null,
  });
  await fresh.store.db.updateTable('tokens').set({ spent }).where('id', '=', id).execute();
  return id;
}

/** spent and the ledger's sum, both as exact decimal text. */
async function exact(tokenId: string): Promise<{ spent: string; ledger: string }> {
  const t = await fresh.store.db
    .selectFrom('tokens')
    .select(sql<string>`cast(spent as text)`.as('spent'))
    .where('id', '=', tokenId)
    .executeTakeFirstOrThrow();
  const l = await fresh.store.db
    .selectFrom('ledger')
    .select(sql<string>`cast(coalesce(sum(amount), 0) as text)`.as('sum'))
    .where('token_id', '=', tokenId)
    .executeTakeFirstOrThrow();
  return { spent: String(t.spent), ledger: String(l.sum) };
}

// 1e20 input tokens: clamped to MAX_CHARGE (1e15) per charge.
const huge = (tokenId: string, requestId: string) => ({
  requestId,
  tokenId,
  model: 'qwx3.7-plus',
  billingModel: 'qwx3.7-plus',
  usage: { kind: 'tokens' as const, inputTokens: 1e20, outputTokens: 0 },
});
const start = MAX_BALANCE - 2.5 * MAX_CHARGE;

describe('a charge past MAX_BALANCE is cut to what is left', () => {
  it('chargeSync: three clamped charges end at exactly MAX_BALANCE, the ledger summing to spent', async () => {
    const id = await tokenAt(start);
    const amounts = [];
    for (let i = 0; i < 3; i++) amounts.push(await kysely.chargeSync(huge(id, `req_s${seq}_${i}`)));
    expect(amounts).toEqual([MAX_CHARGE, MAX_CHARGE, MAX_BALANCE - start - 2 * MAX_CHARGE]);
    const e = await exact(id);
    expect(e.spent).toBe(String(MAX_BALANCE));
    expect(BigInt(e.ledger) + BigInt(start)).toBe(BigInt(MAX_BALANCE));
    const rows = await fresh.store.db
      .selectFrom('ledger')
      .select(['amount', 'quantities'])
      .where('token_id', '=', id)
      .orderBy('id')
      .execute();
    expect(JSON.parse(rows[2]!.quantities)).toMatchObject({ clamped_from: expect.any(String) });
    // A fourth charge has no room: recorded at 0, spent unchanged.
    expect(await kysely.chargeSync(huge(id, `req_s${seq}_4`))).toBe(0);
    expect((await exact(id)).spent).toBe(String(MAX_BALANCE));
  });

  for (const path of ['batch writer', 'kysely batch'] as const) {
    it(`deferred charges (${path}): one batch of ten clamped charges ends at exactly MAX_BALANCE`, async () => {
      const m = path === 'batch writer' ? batched : kysely;
      const id = await tokenAt(start);
      for (let i = 0; i < 10; i++) m.chargeSyncDeferred(huge(id, `req_d${seq}_${i}`));
      await m.flush();
      const e = await exact(id);
      expect(e.spent).toBe(String(MAX_BALANCE));
      expect(BigInt(e.ledger) + BigInt(start)).toBe(BigInt(MAX_BALANCE));
      const t = await new TokensRepo(fresh.store.db).get(id);
      expect(t!.spent).toBe(MAX_BALANCE);
    });
  }

  it('a reserved call settles within the room its balance has left; a hold past the bound is refused', async () => {
    const id = await tokenAt(start);
    await expect(kysely.reserve(`req_h${seq}`, id, 3 * MAX_CHARGE)).rejects.toMatchObject({
      code: 'insufficient_quota',
    });
    await kysely.reserve(`req_r${seq}`, id, 1000);
    await kysely.chargeSync(huge(id, `req_x${seq}`));
    await kysely.chargeSync(huge(id, `req_y${seq}`));
    expect(await kysely.settleReserved(huge(id, `req_r${seq}`))).toBe(MAX_BALANCE - start - 2 * MAX_CHARGE);
    const e = await exact(id);
    expect(e.spent).toBe(String(MAX_BALANCE));
    expect(BigInt(e.ledger) + BigInt(start)).toBe(BigInt(MAX_BALANCE));
  });

  it("a reserved call of an account's token settles within the account's room: both balances end exact", async () => {
    const id = await tokenAt(0);
    const accountId = `acc_b${seq}`;
    await new AccountsRepo(fresh.store.db).create({
      id: accountId,
      name: accountId,
      quota: null,
      budgets: [],
      priceGroup: null,
      timeZone: null,
      expiresAt: null,
    });
    await fresh.store.db.updateTable('accounts').set({ spent: start }).where('id', '=', accountId).execute();
    const billing = { accountId, priceGroup: null, timeZone: null, budgets: [] };
    for (let i = 0; i < 3; i++) {
      await kysely.reserve(`req_a${seq}_${i}`, id, 1000, billing);
      await kysely.settleReserved(huge(id, `req_a${seq}_${i}`));
    }
    const acc = await fresh.store.db
      .selectFrom('accounts')
      .select(sql<string>`cast(spent as text)`.as('spent'))
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(String(acc.spent)).toBe(String(MAX_BALANCE));
    // The token's lines are the account's: its spent is what the account could still take.
    expect((await exact(id)).spent).toBe(String(MAX_BALANCE - start));
    expect((await exact(id)).ledger).toBe(String(MAX_BALANCE - start));
  });

  it('an ordinary charge cut at the bound is reported as clamped, with the amount it was priced at', async () => {
    const id = await tokenAt(MAX_BALANCE - 1000);
    const usage = { kind: 'tokens' as const, inputTokens: 1000, outputTokens: 500 }; // 1,800 at list price
    expect(await kysely.chargeSync({ ...huge(id, `req_o${seq}`), usage })).toBe(1000);
    expect(clamped.find((r) => r.tokenId === id)?.charge).toMatchObject({
      amount: 1000,
      quantities: { clamped_from: '1800' },
    });
    expect((await exact(id)).spent).toBe(String(MAX_BALANCE));
  });
});

describe('an account past the bound, and a token at it', () => {
  const busy = { ...ALLOWANCE_DEFAULTS, busyPerSecond: 0 };
  const writers =
    testDialect() === 'sqlite' ? (['batch writer', 'kysely batch'] as const) : (['kysely batch'] as const);
  for (const path of writers) {
    it(`two busy tokens' allowances charged huge usage (${path}): the account's spent stops at MAX_BALANCE`, async () => {
      const cut: LedgerRow[] = [];
      const m = new StoreMeter(fresh.store.db, () => catalogue, {
        batchWriter: path === 'batch writer' ? fresh.store.batchWriter : null,
        // Nothing is written before the flush below: every call reserves from its token's allowance, as busy calls do.
        flushIntervalMs: 60_000,
        allowances: busy,
        onClamped: (r) => void cut.push(r),
      });
      const accountId = `acc_busy${++seq}`;
      await new AccountsRepo(fresh.store.db).create({
        id: accountId,
        name: accountId,
        quota: null,
        budgets: [],
        priceGroup: null,
        timeZone: null,
        expiresAt: null,
      });
      await fresh.store.db.updateTable('accounts').set({ spent: start }).where('id', '=', accountId).execute();
      const billing = { accountId, priceGroup: null, timeZone: null, budgets: [] };
      const tokens = [await tokenAt(0), await tokenAt(0)];
      await fresh.store.db.updateTable('tokens').set({ account_id: accountId }).where('id', 'in', tokens).execute();
      // Each token reserves three calls from its allowance; each reports 10^20 tokens (MAX_CHARGE each): 6 × 10^15
      // against the account's 2.5 × 10^15 of room.
      for (const id of tokens)
        for (let i = 0; i < 3; i++) {
          const key = `req_busy${seq}_${id}_${i}`;
          await m.reserve(key, id, 1000, billing);
          await m.settleReserved(huge(id, key));
        }
      await m.flush();
      await m.releaseAllowances();
      const acc = await fresh.store.db
        .selectFrom('accounts')
        .select([sql<string>`cast(spent as text)`.as('spent'), 'held'])
        .where('id', '=', accountId)
        .executeTakeFirstOrThrow();
      // Cut at the bound (less what the allowances still held then), never past it; the ledger sums to spent.
      expect(BigInt(acc.spent)).toBeLessThanOrEqual(BigInt(MAX_BALANCE));
      expect(BigInt(acc.spent)).toBeGreaterThan(BigInt(MAX_BALANCE - 1_000_000));
      expect(Number(acc.held)).toBe(0);
      const sum = BigInt((await exact(tokens[0]!)).ledger) + BigInt((await exact(tokens[1]!)).ledger);
      expect(sum + BigInt(start)).toBe(BigInt(acc.spent));
      // The cuts are reported (the audit line), whichever path wrote them.
      expect(cut.length).toBeGreaterThan(0);
    });
  }

  it.skipIf(testDialect() !== 'sqlite')(
    'a cut made by the SQLite writer thread is reported like one made on the event loop',
    async () => {
      const file = await sqliteFileStore({ writerThread: true });
      try {
        expect(file.store.batchWriter?.threaded).toBe(true);
        const cut: LedgerRow[] = [];
        const m = new StoreMeter(file.store.db, () => catalogue, {
          batchWriter: file.store.batchWriter,
          flushIntervalMs: 2,
          onClamped: (r) => void cut.push(r),
        });
        const id = 'tok_thread';
        await new TokensRepo(file.store.db).create({
          id,
          name: id,
          secretHash: 'h_thread',
          prefix: 'tw-test',
          models: null,
          quota: null,
          expiresAt: null,
        });
        await file.store.db
          .updateTable('tokens')
          .set({ spent: MAX_BALANCE - 1000 })
          .where('id', '=', id)
          .execute();
        const usage = { kind: 'tokens' as const, inputTokens: 1000, outputTokens: 500 }; // 1,800 at list price
        m.chargeSyncDeferred({ ...huge(id, 'req_thread'), usage });
        await m.flush();
        expect(cut.map((r) => [r.key, r.charge.amount, r.charge.quantities.clamped_from])).toEqual([
          ['req_thread', 1000, '1800'],
        ]);
        expect(m.atBound.has(id)).toBe(true);
      } finally {
        await file.cleanup();
      }
    },
  );
});
