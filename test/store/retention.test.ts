// The request log's retention sweep, on the suite's dialect: rows past the retention go in small batches, younger
// rows stay, the ledger is never touched, and 0 days keeps everything.
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { RequestLogRepo } from '../../src/store/repos/request-log.ts';
import { sweepRequestLog } from '../../src/store/retention.ts';
import { useStore } from '../support/store.ts';

const fresh = useStore();
const DAY = 86_400_000;
const NOW = Date.parse('2026-06-01T00:00:00Z');

const logRow = (id: string, createdAt: number) => ({
  request_id: id,
  token_id: 'tok_r',
  model: null,
  endpoint: '/v1/x',
  method: 'POST',
  status: 200,
  latency_ms: 1,
  usage: null,
  amount: 0,
  upstream_request_id: null,
  error_code: null,
  created_at: createdAt,
  channel_id: null,
  attempts: null,
  ttfb_ms: null,
});

it('deletes request-log rows older than the retention in batches; younger rows and the ledger stay', async () => {
  const db = fresh.store.db;
  // 40 rows 31..70 days old, 5 rows 1..29 days old, one exactly at the cutoff (kept: strictly older goes).
  const old = Array.from({ length: 40 }, (_, i) => logRow(`req_old_${i}`, NOW - (31 + i) * DAY));
  const young = Array.from({ length: 5 }, (_, i) => logRow(`req_young_${i}`, NOW - (1 + i * 7) * DAY));
  await db
    .insertInto('request_log')
    .values([...old, ...young, logRow('req_edge', NOW - 30 * DAY)])
    .execute();
  await db
    .insertInto('ledger')
    .values({
      idempotency_key: 'old_charge',
      token_id: 'tok_r',
      model: 'm',
      kind: 'tokens',
      quantities: '{}',
      unit_prices: '{}',
      amount: 5,
      request_id: 'req_old_0',
      task_id: null,
      upstream_request_id: null,
      created_at: NOW - 400 * DAY,
    })
    .execute();

  const repo = new RequestLogRepo(db);
  const batches: number[] = [];
  const counting = {
    deleteOlderThan: async (before: number, batch: number) => {
      const n = await repo.deleteOlderThan(before, batch);
      batches.push(n);
      return n;
    },
  };
  expect(await sweepRequestLog(counting, { days: 0, now: () => NOW })).toBe(0);
  expect(batches).toEqual([]);
  expect(await sweepRequestLog(counting, { days: 30, batch: 7, pauseMs: 0, now: () => NOW })).toBe(40);
  // Batches of at most 7 until one comes back short.
  expect(batches).toEqual([7, 7, 7, 7, 7, 5]);
  const left = (await db.selectFrom('request_log').select('request_id').where('token_id', '=', 'tok_r').execute())
    .map((r) => r.request_id)
    .sort();
  expect(left).toEqual(['req_edge', ...young.map((r) => r.request_id)].sort());
  expect(
    await db.selectFrom('ledger').select('idempotency_key').where('idempotency_key', '=', 'old_charge').execute(),
  ).toHaveLength(1);
});

it('TOLLWAY_REQUEST_LOG_RETENTION_DAYS: 90 by default, 0 keeps everything, a negative value is refused', () => {
  expect(loadConfig({}).requestLogRetentionDays).toBe(90);
  expect(loadConfig({ TOLLWAY_REQUEST_LOG_RETENTION_DAYS: '0' }).requestLogRetentionDays).toBe(0);
  expect(() => loadConfig({ TOLLWAY_REQUEST_LOG_RETENTION_DAYS: '-1' })).toThrow(/TOLLWAY_REQUEST_LOG_RETENTION_DAYS/);
});
