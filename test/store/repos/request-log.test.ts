// A request-log row the store refuses (here: a NOT NULL column left empty) is set aside; the rows around it are
// written — on the suite's dialect, SQLite or PostgreSQL.
import { expect, it } from 'vitest';
import { RequestLogWriter, type RequestLogRow } from '../../../src/store/repos/request-log.ts';
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
  const w = new RequestLogWriter(fresh.store.db, { batchWriter: fresh.store.batchWriter, onError: (e) => errors.push(e), onRejected: (rows) => rejected.push(...rows.map((r) => r.requestId)) });
  w.write(row('req_a', '/v1/a'));
  w.write(row('req_bad', null));
  w.write(row('req_b', '/v1/b'));
  await w.flush();
  const ids = (await fresh.store.db.selectFrom('request_log').select('request_id').execute()).map((r) => r.request_id).sort();
  expect(ids).toEqual(['req_a', 'req_b']);
  expect(rejected).toEqual(['req_bad']);
  w.write(row('req_c', '/v1/c'));
  await w.flush();
  expect((await fresh.store.db.selectFrom('request_log').select('request_id').where('request_id', '=', 'req_c').execute())).toHaveLength(1);
});
