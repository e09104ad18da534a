// The gateway sweeps the request log by itself: with TOLLWAY_REQUEST_LOG_RETENTION_DAYS=1, a row two days old is gone
// a moment after it starts, a fresh row and the ledger stay.
import { beforeAll, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { until } from '../../support/wait.ts';

const t = useHarness({ env: { TOLLWAY_REQUEST_LOG_RETENTION_DAYS: '1' } });
const row = (id: string, createdAt: number) => ({
  request_id: id,
  token_id: 'tok_sweep',
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

beforeAll(async () => {
  await t.h.store.db
    .insertInto('request_log')
    .values([row('req_sweep_old', Date.now() - 2 * 86_400_000), row('req_sweep_new', Date.now())])
    .execute();
  // A gateway started after the rows exist: its first sweep (a second after start) finds them.
  await t.h.restart();
});

it('deletes rows past the retention on its own; younger rows stay', async () => {
  const ids = async () =>
    (
      await t.h.store.db.selectFrom('request_log').select('request_id').where('token_id', '=', 'tok_sweep').execute()
    ).map((r) => r.request_id);
  await until(async () => !(await ids()).includes('req_sweep_old'), 'the old row deleted');
  expect(await ids()).toEqual(['req_sweep_new']);
  // Logged once the sweep's delete has answered: the row may be seen gone first.
  await until(
    () => t.h.logs.some((l) => l.includes('request-log rows past their retention deleted')),
    'the sweep logged',
  );
});
