// The composition root's two write-behind queues (compose-store.ts composeWriters): the meter's charges and the
// request log's rows share one flush timer, so a request's charge and the log row that shows it reach the store
// together — through the SQLite batch writer in one transaction — and the row is never stored before its charge.
// On the suite's dialect; the batches the SQLite writer commits are counted by wrapping its writeBatch.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Catalogue } from '../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../src/catalogue/default-catalogue.ts';
import { composeWriters } from '../src/compose-store.ts';
import { PriceGroups } from '../src/pricing/price-groups.ts';
import { makeLogger } from '../src/runtime/logger.ts';
import { AuditRepo } from '../src/store/repos/audit.ts';
import type * as RowWrites from '../src/store/sqlite-row-writes.ts';
import { answeredLogRow, plainToken } from './support/store-rows.ts';
import { testDialect, useStore } from './support/store.ts';

const committed = vi.hoisted(() => [] as Array<{ ledger: string[]; log: string[] }>);
vi.mock('../src/store/sqlite-row-writes.ts', async (importOriginal) => {
  const real = await importOriginal<typeof RowWrites>();
  return {
    ...real,
    writeBatch: (...args: Parameters<typeof real.writeBatch>) => {
      committed.push({ ledger: args[1].map((r) => r[0]), log: args[2].map((r) => r[0]) });
      return real.writeBatch(...args);
    },
  };
});

const fresh = useStore();
// SQLite: the clock of the timers is the test's (setTimeout only), so which rows flush together is decided by the
// timers alone, not by the host's load. (PostgreSQL's client keeps its own timers: there the test runs in real time.)
const sqlite = testDialect() === 'sqlite';
const later = (ms: number) => (sqlite ? vi.advanceTimersByTimeAsync(ms) : new Promise((r) => setTimeout(r, ms)));
beforeEach(() => {
  if (sqlite) vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => vi.useRealTimers());

it("a request's charge and its request-log row, queued apart, are written on one tick (SQLite: in one transaction)", async () => {
  const tokenId = await plainToken(fresh.store.db, 'tick');
  const { meter, requestLog } = composeWriters(
    fresh.store,
    new AuditRepo(fresh.store.db),
    () => new Catalogue(DEFAULT_CATALOGUE),
    makeLogger('silent'),
    new PriceGroups(async () => []),
  );
  committed.length = 0;
  for (const n of [1, 2]) {
    const requestId = `req_tick_${n}_${tokenId}`;
    const amount = meter.chargeSyncDeferred({
      requestId,
      tokenId,
      model: 'qwx3.7-plus',
      billingModel: 'qwx3.7-plus',
      usage: { kind: 'tokens', inputTokens: 1000 * n, outputTokens: 10 },
    });
    expect(amount).toBeGreaterThan(0);
    // The row is written when the answer has gone out, a little after the charge: a timer of its own would fire later.
    await later(3);
    requestLog.write(answeredLogRow({ requestId, tokenId, amount }));
    // Up to the charge's flush, 10 ms after it: on a timer of its own the row would be due 3 ms after that.
    await later(7);
    // A turn of the event loop (setImmediate is not the test's): what was handed to the batch writer is committed
    // before vi.waitFor moves the test's clock on.
    await new Promise((r) => setImmediate(r));
    await vi.waitFor(async () => {
      const logged = await fresh.store.db
        .selectFrom('request_log')
        .select('request_id')
        .where('request_id', '=', requestId)
        .execute();
      expect(logged).toHaveLength(1);
    });
    const charged = await fresh.store.db
      .selectFrom('ledger')
      .select('idempotency_key')
      .where('token_id', '=', tokenId)
      .execute();
    expect(charged.map((r) => r.idempotency_key)).toContain(requestId);
    if (sqlite) expect(committed).toEqual([{ ledger: [requestId], log: [requestId] }]);
    committed.length = 0;
  }
  await Promise.all([meter.flush(), requestLog.flush()]);
});
