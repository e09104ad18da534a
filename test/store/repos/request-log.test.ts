// A request-log row the store refuses (here: a NOT NULL column left empty) is set aside; the rows around it are
// written — on the suite's dialect, SQLite or PostgreSQL.
import { expect, it } from 'vitest';
import { Catalogue } from '../../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../../../src/catalogue/default-catalogue.ts';
import { StoreMeter } from '../../../src/metering/meter.ts';
import { RequestLogWriter, type RequestLogRow } from '../../../src/store/repos/request-log.ts';
import { plainToken } from '../../support/store-rows.ts';
import { useStore } from '../../support/store.ts';

const fresh = useStore();

const row = (id: string, endpoint: string | null): RequestLogRow => ({
  requestId: id,
  tokenId: 'tok_x',
  model: null,
  endpoint: endpoint as string,
  method: 'POST',
  status: 200,
  latencyMs: 1,
  usage: null,
  amount: 0,
  upstreamRequestId: null,
  errorCode: null,
  createdAt: Date.now(),
});

it('a refused row is set aside and reported; the rows before and after it are written', async () => {
  const rejected: string[] = [];
  const errors: unknown[] = [];
  const w = new RequestLogWriter(fresh.store.db, {
    batchWriter: fresh.store.batchWriter,
    onError: (e) => errors.push(e),
    onRejected: (rows) => rejected.push(...rows.map((r) => r.requestId)),
  });
  w.write(row('req_a', '/v1/a'));
  w.write(row('req_bad', null));
  w.write(row('req_b', '/v1/b'));
  await w.flush();
  const ids = (await fresh.store.db.selectFrom('request_log').select('request_id').execute())
    .map((r) => r.request_id)
    .sort();
  expect(ids).toEqual(['req_a', 'req_b']);
  expect(rejected).toEqual(['req_bad']);
  w.write(row('req_c', '/v1/c'));
  await w.flush();
  expect(
    await fresh.store.db.selectFrom('request_log').select('request_id').where('request_id', '=', 'req_c').execute(),
  ).toHaveLength(1);
});

it('a row that shows a charge is written only after the charges queued before it, or with them (StoreMeter.chargesAhead)', async () => {
  const tokenId = await plainToken(fresh.store.db, 'cf');
  // A meter that would not commit on its own for a minute: only the writer's call of chargesAhead can make it write.
  const meter = new StoreMeter(fresh.store.db, () => new Catalogue(DEFAULT_CATALOGUE), {
    batchWriter: fresh.store.batchWriter,
    flushIntervalMs: 60_000,
  });
  const w = new RequestLogWriter(fresh.store.db, {
    batchWriter: fresh.store.batchWriter,
    chargesAhead: () => meter.chargesAhead(),
    onError: (e) => {
      throw e;
    },
  });
  const ledgerKeys = async () =>
    (await fresh.store.db.selectFrom('ledger').select('idempotency_key').where('token_id', '=', tokenId).execute()).map(
      (r) => r.idempotency_key,
    );
  const amount = meter.chargeSyncDeferred({
    requestId: 'req_cf_1',
    tokenId,
    model: 'qwx3.7-plus',
    billingModel: 'qwx3.7-plus',
    usage: { kind: 'tokens', inputTokens: 1000, outputTokens: 500 },
  });
  expect(amount).toBeGreaterThan(0);
  // An uncharged row does not wait for the meter: the charge stays queued.
  w.write({ ...row('req_cf_0', '/v1/models'), tokenId });
  await w.flush();
  expect(await ledgerKeys()).toEqual([]);
  w.write({ ...row('req_cf_1', '/v1/chat/completions'), tokenId, amount });
  await w.flush();
  expect(await ledgerKeys()).toEqual(['req_cf_1']);
  expect(meter.unwritten()).toEqual([]);
});
