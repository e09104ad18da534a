// SQLite has two write paths for the per-request rows: the store's prepared statements (store.batchWriter, what the
// gateway uses) and Kysely (what PostgreSQL uses). The same charges and request-log rows, written each way into a
// store of its own, must leave the same rows behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import { StoreMeter } from '../../src/metering/meter.ts';
import type { SyncChargeInput } from '../../src/metering/types.ts';
import { RequestLogWriter, type RequestLogRow } from '../../src/store/repos/request-log.ts';
import { AccountsRepo } from '../../src/store/repos/accounts.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import { freshStore, testDialect } from '../support/store.ts';

type Fresh = Awaited<ReturnType<typeof freshStore>>;
const catalogue = new Catalogue(DEFAULT_CATALOGUE);

const charges: SyncChargeInput[] = [
  {
    requestId: 'req_1',
    tokenId: 'tok_w',
    model: 'qwx3.7-plus',
    billingModel: 'qwx3.7-plus',
    usage: { kind: 'tokens', inputTokens: 1200, outputTokens: 345, cachedTokens: 200 },
    upstreamRequestId: 'up-1',
  },
  // An upstream request id longer than its column: cut to 200 either way.
  {
    requestId: 'req_2',
    tokenId: 'tok_w',
    model: 'qwx3.7-plus',
    billingModel: 'qwx3.7-plus',
    usage: { kind: 'tokens', inputTokens: 1, outputTokens: 0 },
    upstreamRequestId: 'x'.repeat(500),
  },
  {
    requestId: 'req_3',
    idempotencyKey: 'req_3:extra',
    tokenId: 'tok_w',
    model: 'qwx-image-2.0',
    billingModel: 'qwx-image-2.0',
    usage: { kind: 'images', images: 2 },
    upstreamRequestId: null,
  },
  // A repeated key: neither a second row nor a second move of `spent`.
  {
    requestId: 'req_1',
    tokenId: 'tok_w',
    model: 'qwx3.7-plus',
    billingModel: 'qwx3.7-plus',
    usage: { kind: 'tokens', inputTokens: 9, outputTokens: 9 },
  },
];

const logRows: RequestLogRow[] = [
  {
    requestId: 'req_1',
    tokenId: 'tok_w',
    model: 'qwx3.7-plus',
    endpoint: '/v1/chat/completions',
    method: 'POST',
    status: 200,
    latencyMs: 12,
    usage: { prompt_tokens: 3, nested: { a: [1, 'é'] } },
    amount: 42,
    upstreamRequestId: 'up-1',
    errorCode: null,
    channelId: 'ch_b',
    attempts: [
      { channel_id: 'ch_a', outcome: 'error', error_code: 'upstream_unavailable', latency_ms: 3.25 },
      { channel_id: 'ch_b', outcome: 'ok', error_code: null, latency_ms: 9 },
    ],
    ttfbMs: 11,
    upstreamError: `HTTP 400 1201: model_name 'kling-video-o1' ${'é'.repeat(1200)}`,
    createdAt: 1000,
  },
  {
    requestId: 'req_2',
    tokenId: null,
    model: null,
    endpoint: `/v1/${'p'.repeat(300)}`,
    method: 'PROPFIND-LONG',
    status: 404,
    latencyMs: 0,
    usage: null,
    amount: 0,
    upstreamRequestId: 'y'.repeat(250),
    errorCode: 'e'.repeat(150),
    createdAt: 1001,
  },
  {
    requestId: 'req_1',
    tokenId: 'tok_w',
    model: 'qwx3.7-plus',
    endpoint: '/v1/chat/completions',
    method: 'POST',
    status: 500,
    latencyMs: 1,
    usage: undefined,
    amount: 1,
    upstreamRequestId: null,
    errorCode: 'x',
    createdAt: 1002,
  },
];

async function writeBoth(f: Fresh, prepared: boolean) {
  const { store } = f;
  await new TokensRepo(store.db).create({
    id: 'tok_w',
    name: 'w',
    secretHash: 'h_w',
    prefix: 'tw-w',
    models: null,
    quota: null,
    expiresAt: null,
  });
  const batchWriter = prepared ? store.batchWriter : null;
  const meter = new StoreMeter(store.db, () => catalogue, { batchWriter });
  const log = new RequestLogWriter(store.db, { batchWriter, onError: (e) => expect.fail(String(e)) });
  for (const c of charges) meter.chargeSyncDeferred(c);
  for (const r of logRows) log.write(r);
  await meter.flush();
  await log.flush();
  const ledger = await store.db.selectFrom('ledger').selectAll().orderBy('idempotency_key').execute();
  const spent = await store.db
    .selectFrom('tokens')
    .select(['spent', 'held'])
    .where('id', '=', 'tok_w')
    .executeTakeFirstOrThrow();
  const requestLog = await store.db.selectFrom('request_log').selectAll().orderBy('request_id').execute();
  // The incident columns are written by both paths (row req_2 has none: absent fields are stored as null).
  expect(
    requestLog.map((r) => [
      r.channel_id,
      r.ttfb_ms === null ? null : Number(r.ttfb_ms),
      r.attempts === null ? null : (JSON.parse(r.attempts) as unknown[]).length,
    ]),
  ).toEqual([
    ['ch_b', 11, 2],
    [null, null, null],
  ]);
  // The upstream's words, cut to their column's 1000 characters by both paths.
  expect(requestLog.map((r) => r.upstream_error?.length ?? null)).toEqual([1000, null]);
  // The row id and the moment of the charge differ between the two runs by nature.
  return { ledger: ledger.map(({ id: _id, created_at: _at, ...rest }) => rest), spent, requestLog };
}

/**
 * Charges taken from allowances (two tokens of one account with a month budget, a price group) and a plain charge,
 * written one way: the balances, budget rows and allowance holds they leave.
 */
async function writeAllowanceCharges(f: Fresh, prepared: boolean) {
  const { store } = f;
  const groups = new Map([['half', { name: 'half', multiplierPpm: 500_000, prices: {}, createdAt: 0, updatedAt: 0 }]]);
  await new AccountsRepo(store.db).create({
    id: 'acc_w',
    name: 'w',
    quota: 10_000_000_000,
    budgets: [{ period: 'month', limit: 10_000_000_000 }],
    priceGroup: 'half',
    timeZone: null,
    expiresAt: null,
  });
  const billing = {
    accountId: 'acc_w',
    priceGroup: 'half',
    timeZone: null,
    budgets: [{ holderId: 'acc_w', period: 'month' as const, limit: 10_000_000_000 }],
  };
  for (const id of ['tok_a', 'tok_b', 'tok_p'])
    await new TokensRepo(store.db).create({
      id,
      name: id,
      secretHash: `h_${id}`,
      prefix: 'tw-',
      models: null,
      quota: null,
      expiresAt: null,
      ...(id === 'tok_p' ? {} : { accountId: 'acc_w' }),
    });
  const allowances = { busyPerSecond: 0, maxCalls: 64, shareOf: 4, minCalls: 8, lifetimeMs: 30_000, idleMs: 60_000 };
  const meter = new StoreMeter(store.db, () => catalogue, {
    batchWriter: prepared ? store.batchWriter : null,
    priceGroups: groups,
    allowances,
    now: () => 1_000,
  });
  for (const tok of ['tok_a', 'tok_b'])
    for (let i = 0; i < 12; i++) {
      const id = `req_${tok}_${i}`;
      await meter.reserve(id, tok, 100_000, billing);
      const usage = { kind: 'tokens', inputTokens: 1000 * (i + 1), outputTokens: 500 } as const;
      if (i % 3 === 2) await meter.releaseReserved(id);
      else
        meter.settleReserved({ requestId: id, tokenId: tok, model: 'qwx3.7-plus', billingModel: 'qwx3.7-plus', usage });
    }
  meter.chargeSyncDeferred({ ...charges[0]!, tokenId: 'tok_p' });
  await meter.flush();
  const db = store.db;
  const rows = {
    tokens: await db.selectFrom('tokens').select(['id', 'spent', 'held']).orderBy('id').execute(),
    accounts: await db.selectFrom('accounts').select(['spent', 'held']).execute(),
    budgets: await db
      .selectFrom('budget_spend')
      .select(['holder_id', 'period', 'period_start', 'spent', 'held'])
      .execute(),
    holds: (
      await db.selectFrom('holds').select(['token_id', 'amount', 'state', 'updated_at']).orderBy('token_id').execute()
    ).map((h) => ({
      ...h,
      amount: Number(h.amount),
      updated_at: Number(h.updated_at),
    })),
    ledger: (
      await db
        .selectFrom('ledger')
        .select(['idempotency_key', 'amount', 'account_id', 'price_group'])
        .orderBy('idempotency_key')
        .execute()
    ).length,
  };
  await meter.releaseAllowances();
  return rows;
}

describe.skipIf(testDialect() !== 'sqlite')('SQLite write paths', () => {
  let a: Fresh;
  let b: Fresh;
  beforeAll(async () => {
    [a, b] = await Promise.all([freshStore(), freshStore()]);
  });
  afterAll(async () => Promise.all([a?.cleanup(), b?.cleanup()]));

  it('prepared statements and Kysely leave the same ledger, spent and request-log rows', async () => {
    const prepared = await writeBoth(a, true);
    const kysely = await writeBoth(b, false);
    expect(prepared.ledger).toHaveLength(3);
    expect(prepared.requestLog).toHaveLength(2);
    expect(prepared.spent.spent).toBeGreaterThan(0);
    expect(kysely).toEqual(prepared);
  });

  it('charges taken from allowances: Kysely (set-wise, as on PostgreSQL) and prepared statements leave the same balances and holds', async () => {
    const [c, d] = await Promise.all([freshStore(), freshStore()]);
    try {
      const prepared = await writeAllowanceCharges(c, true);
      const kysely = await writeAllowanceCharges(d, false);
      expect(prepared.ledger).toBe(17);
      expect(prepared.holds.map((h) => [h.token_id, h.state])).toEqual([
        ['tok_a', 'held'],
        ['tok_b', 'held'],
      ]);
      expect(Number(prepared.accounts[0]?.spent)).toBeGreaterThan(0);
      expect(kysely).toEqual(prepared);
    } finally {
      await Promise.all([c.cleanup(), d.cleanup()]);
    }
  });
});
