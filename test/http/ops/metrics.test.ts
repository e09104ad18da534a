// GET /metrics: traffic through chat (openai SDK), family A and images shows up by route, model and status;
// upstream attempts and errors by channel; breakers, write queues, open tasks, poll lag and holds read at scrape
// time; and the endpoint refuses callers without the metrics token or the admin key.
import { sql } from 'kysely';
import type OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';
import { scrape, sampleValue, type Sample } from '../../support/prometheus.ts';
import { openaiClient } from '../../support/sdk.ts';
import { call, vidxHarness, type TaskData } from '../../support/vidx.ts';
import { until } from '../../support/wait.ts';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
// No poller: a created task stays open and due, so the task gauges have something to show.
// Loopback is a trusted proxy hop: the lockout test names its own (documentation) client addresses.
const t = useHarness(
  vidxHarness({
    env: { TOLLWAY_METRICS_TOKEN: METRICS_TOKEN, TOLLWAY_TASK_POLLER: 'false', TOLLWAY_TRUST_PROXY: 'loopback' },
  }),
);
let client: OpenAI;
beforeAll(() => {
  client = openaiClient(t.h, t.token);
});

const REQUESTS = 'tollway_requests_total';
const DURATION = 'tollway_request_duration_seconds';
const T2V = '/vidx/v1/videos/text2video';

/**
 * Scrape until `name{labels}` reaches `atLeast` (a request is counted when its answer is over, just after the client
 * has it).
 */
async function scrapeUntil(name: string, labels: Record<string, string>, atLeast: number): Promise<Sample[]> {
  let s: Sample[] = [];
  await until(
    async () => sampleValue((s = await scrape(t.h)), name, labels) >= atLeast,
    `${name}${JSON.stringify(labels)} ≥ ${atLeast}`,
  );
  return s;
}

describe('GET /metrics', () => {
  it('counts chat, family A and image requests by route, model and status, with their latency and upstream attempts', async () => {
    const before = await scrape(t.h);
    const chatLabels = { route: '/v1/chat/completions', model: 'qwx3.7-plus', status: '200' };
    const imgLabels = { route: '/v1/images/generations', model: 'qwx-image-2.0', status: '200' };
    const okAttempts = (s: Sample[], channel: string) =>
      sampleValue(s, 'tollway_upstream_attempt_duration_seconds_count', { channel, outcome: 'ok' });

    await client.chat.completions.create({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hello' }] });
    await client.images.generate({ model: 'qwx-image-2.0', prompt: 'a lighthouse', n: 1 });
    const created = await call<TaskData>(t.h, t.token, 'POST', T2V, {
      model_name: 'vidx-v2-5',
      prompt: 'a lighthouse at dusk',
      duration: '5',
    });
    expect(created.status).toBe(200);
    const after = await scrapeUntil(
      REQUESTS,
      { route: T2V, status: '200' },
      sampleValue(before, REQUESTS, { route: T2V, status: '200' }) + 1,
    );

    expect(sampleValue(after, REQUESTS, chatLabels) - sampleValue(before, REQUESTS, chatLabels)).toBe(1);
    expect(
      sampleValue(after, `${DURATION}_count`, chatLabels) - sampleValue(before, `${DURATION}_count`, chatLabels),
    ).toBe(1);
    expect(sampleValue(after, `${DURATION}_bucket`, { ...chatLabels, le: '+Inf' })).toBe(
      sampleValue(after, `${DURATION}_count`, chatLabels),
    );
    expect(sampleValue(after, `${DURATION}_sum`, chatLabels)).toBeGreaterThan(0);
    expect(sampleValue(after, REQUESTS, imgLabels) - sampleValue(before, REQUESTS, imgLabels)).toBe(1);
    const t2v = after.filter((s) => s.name === REQUESTS && s.labels.route === T2V);
    expect(t2v.map((s) => [s.labels.model, s.labels.status])).toEqual([['vidx-v2-5-turbo', '200']]);
    // Upstream attempts by channel: chat and image on DashScope, the family A creation on Kling.
    expect(okAttempts(after, 'sim-dashscope') - okAttempts(before, 'sim-dashscope')).toBe(2);
    expect(okAttempts(after, 'sim-kling') - okAttempts(before, 'sim-kling')).toBe(1);
  });

  it('a path that matched no route is counted as route "unmatched", never under its own path', async () => {
    const path = `/v1/no-such-thing-${Date.now()}`;
    expect((await t.h.fetch(path, { token: t.token })).status).toBe(404);
    const s = await scrapeUntil(REQUESTS, { route: 'unmatched', status: '404' }, 1);
    expect(s.some((x) => Object.values(x.labels).some((v) => v.includes('no-such-thing')))).toBe(false);
  });

  it('upstream errors by channel and code', async () => {
    const labels = { channel: 'sim-dashscope', code: 'upstream_error' };
    const before = sampleValue(await scrape(t.h), 'tollway_upstream_errors_total', labels);
    t.h.sim.faults.add({ kind: 'status', arg: 500, path: '/compatible-mode/v1/chat/completions', times: 1 });
    // The first attempt fails (500), the retry succeeds: the client never sees the error.
    await client.chat.completions.create({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'retry me' }] });
    const after = await scrape(t.h);
    expect(sampleValue(after, 'tollway_upstream_errors_total', labels) - before).toBe(1);
    expect(
      sampleValue(after, 'tollway_upstream_attempt_duration_seconds_count', {
        channel: 'sim-dashscope',
        outcome: 'error',
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('circuit breaker state per channel, read at scrape time', async () => {
    const ch = t.h.gw.deps.channels.all().find((c) => c.name === 'sim-kling')!;
    expect(sampleValue(await scrape(t.h), 'tollway_circuit_breaker_state', { channel: 'sim-kling' })).toBe(0);
    for (let i = 0; i < 5; i++) t.h.gw.deps.breakers.failure(ch.id);
    expect(sampleValue(await scrape(t.h), 'tollway_circuit_breaker_state', { channel: 'sim-kling' })).toBe(1);
    t.h.gw.deps.breakers.success(ch.id);
    expect(sampleValue(await scrape(t.h), 'tollway_circuit_breaker_state', { channel: 'sim-kling' })).toBe(0);
  });

  it('open tasks by state, poll lag and open holds come from the store at scrape time', async () => {
    const { id: tokenId, secret } = await t.h.token({ name: 'holds', quota: 1_000_000_000 });
    const c = await call<TaskData>(t.h, secret, 'POST', T2V, {
      model_name: 'vidx-v2-5',
      prompt: 'overdue',
      duration: '5',
    });
    expect(c.status).toBe(200);
    const taskId = c.body.data.task_id;
    // Its next poll 90 s overdue (no poller runs here).
    await t.h.store.db
      .updateTable('tasks')
      .set({ next_poll_at: Date.now() - 90_000 })
      .where('id', '=', taskId)
      .execute();
    await t.h.gw.deps.meter.reserve('req_metrics_test', tokenId, 1234);
    try {
      const s = await scrape(t.h);
      expect(sampleValue(s, 'tollway_metrics_store_up')).toBe(1);
      const open = s.filter((x) => x.name === 'tollway_tasks_open');
      expect(open.map((x) => x.labels.state).sort()).toEqual(['in_progress', 'queued', 'submitting', 'waiting']);
      const rows = await t.h.store.db
        .selectFrom('tasks')
        .select(['state'])
        .where('state', 'in', ['submitting', 'queued', 'in_progress'])
        .execute();
      for (const st of ['submitting', 'queued', 'in_progress'])
        expect(sampleValue(s, 'tollway_tasks_open', { state: st })).toBe(rows.filter((r) => r.state === st).length);
      expect(sampleValue(s, 'tollway_task_poll_lag_seconds')).toBeGreaterThanOrEqual(90);
      expect(sampleValue(s, 'tollway_task_poll_lag_seconds')).toBeLessThan(200);
      expect(sampleValue(s, 'tollway_holds_open', { kind: 'reservation' })).toBe(1);
      expect(sampleValue(s, 'tollway_holds_open_amount', { kind: 'reservation' })).toBe(1234);
      const held = await t.h.store.db
        .selectFrom('holds')
        .select(['amount'])
        .where('state', '=', 'held')
        .where('hold_key', 'not like', 'req_%')
        .execute();
      expect(held.length).toBeGreaterThanOrEqual(1);
      expect(sampleValue(s, 'tollway_holds_open', { kind: 'task' })).toBe(held.length);
      expect(sampleValue(s, 'tollway_holds_open_amount', { kind: 'task' })).toBe(
        held.reduce((a, h) => a + Number(h.amount), 0),
      );
    } finally {
      await t.h.gw.deps.meter.releaseReserved('req_metrics_test');
    }
    const s = await scrape(t.h);
    expect(sampleValue(s, 'tollway_holds_open', { kind: 'reservation' })).toBe(0);
  });

  it('write-behind queues: depth and lag per queue', async () => {
    const s = await scrape(t.h);
    for (const queue of ['ledger', 'request_log']) {
      expect(s.some((x) => x.name === 'tollway_write_queue_rows' && x.labels.queue === queue)).toBe(true);
      expect(sampleValue(s, 'tollway_write_queue_lag_seconds', { queue })).toBeGreaterThanOrEqual(0);
    }
  });

  it('the store gauges go missing (store_up 0) when the store cannot answer them; the rest still answers', async () => {
    const db = t.h.store.db;
    // A real store failure: the holds table is not there for the length of one scrape.
    await sql`alter table holds rename to holds_away`.execute(db);
    try {
      const s = await scrape(t.h);
      expect(sampleValue(s, 'tollway_metrics_store_up')).toBe(0);
      expect(s.some((x) => x.name === 'tollway_holds_open')).toBe(false);
      expect(s.some((x) => x.name === 'tollway_tasks_open')).toBe(false);
      // Not 0 ("nothing overdue"): absent, like the other store gauges.
      expect(s.some((x) => x.name === 'tollway_task_poll_lag_seconds')).toBe(false);
      expect(s.some((x) => x.name === 'tollway_requests_total')).toBe(true);
    } finally {
      await sql`alter table holds_away rename to holds`.execute(db);
    }
    const back = await scrape(t.h);
    expect(sampleValue(back, 'tollway_metrics_store_up')).toBe(1);
    expect(sampleValue(back, 'tollway_task_poll_lag_seconds')).toBeGreaterThanOrEqual(0);
  });
});

describe('GET /metrics protection', () => {
  it('refuses without a bearer (401), with a client token or a wrong one (403); takes the metrics token and the admin key', async () => {
    await expectB(await t.h.fetch('/metrics'), 401, 'missing_token');
    await expectB(await t.h.fetch('/metrics', { token: t.token }), 403, 'permission_denied');
    await expectB(await t.h.fetch('/metrics', { token: 'metrics-token-0123456789abcdeX' }), 403, 'permission_denied');
    expect((await t.h.fetch('/metrics', { token: METRICS_TOKEN })).status).toBe(200);
    expect((await t.h.fetch('/metrics', { token: t.h.adminKey })).status).toBe(200);
  });

  // A locked-out address must not be able to guess the metrics token at full speed: while it is locked out the
  // right token is refused too (429, compared with nothing), like the admin key.
  it('while an address is locked out by wrong bearers, even the right metrics token gets 429; other addresses still scrape', async () => {
    const from = (address: string, token: string) =>
      t.h.fetch('/metrics', { token, headers: { 'x-forwarded-for': address } });
    const guesser = '198.51.100.43';
    for (let i = 0; i < 5; i++)
      await expectB(await from(guesser, `wrong-metrics-token-${i}`), 403, 'permission_denied');
    const locked = await from(guesser, METRICS_TOKEN);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await from(guesser, t.h.adminKey)).status).toBe(429);
    expect((await from('198.51.100.44', METRICS_TOKEN)).status).toBe(200);
  });
});
