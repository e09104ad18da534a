// Upstream faults on images, /v1/videos and family A task creation. These calls are connect-only: a
// request the upstream may have accepted is never sent twice. Expected: the family's error shape, no
// leak, no charge and no open hold on failure; exactly one `<task>:success` charge on success.
import { describe, expect, it } from 'vitest';
import { expectFamilyAError, expectFamilyBError, expectNoLeak } from '../support/error-shapes.ts';
import { postJson, useHarness } from '../support/harness.ts';
import { flushWriters, holdOfTask, ledgerOfRequest, ledgerOfTask } from '../support/store-rows.ts';
import { FAST_TASK_ENV, waitTerminal } from '../support/videos.ts';
import { waitForFamilyATask } from '../support/vidx.ts';

const t = useHarness({
  env: {
    ...FAST_TASK_ENV,
    TOLLWAY_CALLBACK_TICK_MS: '40',
    TOLLWAY_UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '600',
    TOLLWAY_UPSTREAM_IDLE_TIMEOUT_MS: '500',
  },
  sim: { taskDurationMs: 250 },
});

const post = (path: string, json: unknown) => postJson(t.h, t.token, path, json);

/** Nothing open and nothing charged for this token beyond the given successful tasks. */
async function ledgerState() {
  await flushWriters(t.h);
  const ledger = await t.h.store.db.selectFrom('ledger').selectAll().where('token_id', '=', t.tokenId).execute();
  const held = await t.h.store.db
    .selectFrom('holds')
    .selectAll()
    .where('token_id', '=', t.tokenId)
    .where('state', '=', 'held')
    .execute();
  const tasks = await t.h.store.db.selectFrom('tasks').selectAll().where('token_id', '=', t.tokenId).execute();
  return { ledger, held, tasks };
}

const CREATION_FAULTS: Array<{ fault: string; status: number; code: string; vendor: number }> = [
  { fault: 'status:500', status: 502, code: 'upstream_error', vendor: 5001 },
  { fault: 'status:429', status: 429, code: 'upstream_rate_limited', vendor: 1302 },
  { fault: 'timeout', status: 504, code: 'upstream_timeout', vendor: 5002 },
  { fault: 'reset', status: 502, code: 'upstream_error', vendor: 5001 },
  { fault: 'malformed', status: 502, code: 'upstream_error', vendor: 5001 },
];

describe('images: faults → no charge, never repeated once sent', () => {
  for (const f of [...CREATION_FAULTS, { fault: 'lost-reply', status: 502, code: 'upstream_error', vendor: 0 }]) {
    it(`upstream ${f.fault} → ${f.status} ${f.code}, one upstream call, no charge`, async () => {
      const before = t.h.sim.requestsTo('multimodal-generation/generation').length;
      const r = await post('/v1/images/generations', { model: 'qwx-image-2.0', prompt: `a cat sim-fault:${f.fault}` });
      expect(r.status).toBe(f.status);
      expectFamilyBError(r.text, r.rid, f.code);
      expectNoLeak(t.h, r.text);
      expect(t.h.sim.requestsTo('multimodal-generation/generation').length).toBe(before + 1);
      expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(0);
    });
  }
  it('no image in a successful answer → error, no charge', async () => {
    const r = await post('/v1/images/generations', { model: 'qwx-image-2.0', prompt: 'sim-fault:no-output' });
    expect(r.status).toBeGreaterThanOrEqual(500);
    expectFamilyBError(r.text, r.rid, JSON.parse(r.text).error.code);
    expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(0);
  });
  it('success → exactly one charge', async () => {
    const r = await post('/v1/images/generations', { model: 'qwx-image-2.0', prompt: 'a fine cat' });
    expect(r.status).toBe(200);
    expect(await ledgerOfRequest(t.h, r.rid!)).toHaveLength(1);
  });
});

describe('/v1/videos creation: faults → no task, hold released, no charge, never re-created', () => {
  for (const f of [...CREATION_FAULTS, { fault: 'lost-reply', status: 502, code: 'upstream_error', vendor: 0 }]) {
    it(`upstream ${f.fault} on creation → ${f.status} ${f.code}`, async () => {
      const before = t.h.sim.requestsTo('video-synthesis').length;
      const r = await post('/v1/videos', { model: 'wnx2.7-t2v', prompt: `sim-fault:${f.fault}`, seconds: 2 });
      expect(r.status).toBe(f.status);
      expectFamilyBError(r.text, r.rid, f.code);
      expectNoLeak(t.h, r.text);
      // Connect-only: one creation attempt. (After `lost-reply` the upstream did create a task we never
      // learnt the id of: DashScope has no idempotency key, so it is treated as failed — see README.)
      expect(t.h.sim.requestsTo('video-synthesis').length).toBe(before + 1);
      const s = await ledgerState();
      expect(s.held).toHaveLength(0);
      expect(s.ledger.filter((l) => l.request_id === r.rid)).toHaveLength(0);
      expect(s.tasks.filter((tok) => tok.request_id === r.rid)).toHaveLength(0);
    });
  }

  for (const fault of ['fail-task', 'vanish']) {
    it(`the task itself ${fault}s → status failed, hold released, no charge`, async () => {
      const r = await post('/v1/videos', { model: 'wnx2.7-t2v', prompt: `sim-fault:${fault}`, seconds: 2 });
      expect(r.status).toBe(200);
      const id = (JSON.parse(r.text) as { id: string }).id;
      const v = await waitTerminal(t.h, t.token, id);
      expect(v.status).toBe('failed');
      expect(v.error?.code).toBeTruthy();
      const hold = await holdOfTask(t.h, id);
      expect(hold?.state).not.toBe('held');
      expect(await ledgerOfTask(t.h, id)).toHaveLength(0);
    });
  }

  it('polls failing (5xx, timeouts) do not fail or double-charge the task: one success charge', async () => {
    const r = await post('/v1/videos', { model: 'wnx2.7-t2v', prompt: 'polls fail for a while', seconds: 2 });
    const id = (JSON.parse(r.text) as { id: string }).id;
    t.h.sim.faults.add({ kind: 'status', arg: 500, path: '/api/v1/tasks/', times: 3 });
    t.h.sim.faults.add({ kind: 'reset', path: '/api/v1/tasks/', times: 2 });
    const v = await waitTerminal(t.h, t.token, id);
    t.h.sim.faults.clear();
    expect(v.status).toBe('completed');
    const rows = await ledgerOfTask(t.h, id);
    expect(rows.map((x) => x.idempotency_key)).toEqual([`${id}:success`]);
  });
});

describe('family A creation: faults → vendor envelope, no task, no hold; a lost reply is resolved by external_task_id', () => {
  const T2V = '/vidx/v1/videos/text2video';
  // A 429 (Kling 1302, or 1303 for the account's parallel tasks) is not the client's failure: the task waits in the
  // gateway for the upstream (test/http/vidx/slot-queue.test.ts); below, once through a one-time fault.
  for (const f of CREATION_FAULTS.filter((x) => x.fault !== 'status:429')) {
    it(`upstream ${f.fault} on creation → ${f.status}, vendor code ${f.vendor}`, async () => {
      const before = t.h.sim.requestsTo('/v1/videos/text2video').filter((x) => x.method === 'POST').length;
      const r = await post(T2V, { prompt: `sim-fault:${f.fault}` });
      expect(r.status).toBe(f.status);
      expectFamilyAError(r.text, r.rid, f.vendor);
      expectNoLeak(t.h, r.text);
      expect(t.h.sim.requestsTo('/v1/videos/text2video').filter((x) => x.method === 'POST').length).toBe(before + 1);
      const s = await ledgerState();
      expect(s.held).toHaveLength(0);
      expect(s.tasks.filter((tok) => tok.request_id === r.rid)).toHaveLength(0);
    });
  }

  it('upstream 429 on creation → the task waits in the gateway (code 0, submitted), is sent again, completes and is charged once', async () => {
    const posts = () => t.h.sim.requestsTo('/v1/videos/text2video').filter((x) => x.method === 'POST').length;
    const before = posts();
    t.h.sim.faults.add({ kind: 'status', arg: 429, path: '/v1/videos/text2video', times: 1 });
    const r = await post(T2V, { prompt: 'a cat, after a rate limit' });
    expect(r.status).toBe(200);
    const env = JSON.parse(r.text) as { code: number; data: { task_id: string; task_status: string } };
    expect(env.code).toBe(0);
    expect(env.data.task_status).toBe('submitted');
    const id = env.data.task_id;
    expect(await waitForFamilyATask(t.h, t.token, T2V, id, 'succeed')).toBe('succeed');
    expect(posts()).toBe(before + 2); // refused once, then sent from the queue
    await flushWriters(t.h);
    expect((await ledgerOfTask(t.h, id)).map((x) => x.idempotency_key)).toEqual([`${id}:success`]);
  });

  it('lost reply (the upstream created the task, the answer never came): adopted via external_task_id, completed, charged once', async () => {
    const posts = () => t.h.sim.requestsTo('/v1/videos/text2video').filter((x) => x.method === 'POST').length;
    const before = posts();
    const r = await post(T2V, { prompt: 'sim-fault:lost-reply' });
    expect(r.status).toBe(200);
    const env = JSON.parse(r.text) as { code: number; data: { task_id: string } };
    expect(env.code).toBe(0);
    expect(posts()).toBe(before + 1); // never re-sent
    const id = env.data.task_id;
    expect(await waitForFamilyATask(t.h, t.token, T2V, id, 'succeed')).toBe('succeed');
    await flushWriters(t.h);
    const rows = await ledgerOfTask(t.h, id);
    expect(rows.map((x) => x.idempotency_key)).toEqual([`${id}:success`]);
  });

  it('lost reply and the lookup fails too: the task is kept (not deleted with the upstream running it), found by the poller, charged once', async () => {
    const posts = () => t.h.sim.requestsTo('/v1/videos/text2video').filter((x) => x.method === 'POST').length;
    const before = posts();
    // The creation's answer is lost, and the lookup by external_task_id that follows gets a 500 once.
    t.h.sim.faults.add({ kind: 'status', arg: 500, path: '/v1/videos/text2video/task_', times: 1 });
    const r = await post(T2V, { prompt: 'sim-fault:lost-reply' });
    t.h.sim.faults.clear();
    expect(r.status).toBe(200);
    const env = JSON.parse(r.text) as { code: number; data: { task_id: string; task_status: string } };
    expect(env.code).toBe(0);
    expect(env.data.task_status).toBe('submitted');
    expect(posts()).toBe(before + 1); // never re-sent
    const id = env.data.task_id;
    expect((await holdOfTask(t.h, id))?.state).toBe('held');
    expect(await waitForFamilyATask(t.h, t.token, T2V, id, 'succeed')).toBe('succeed');
    await flushWriters(t.h);
    expect((await ledgerOfTask(t.h, id)).map((x) => x.idempotency_key)).toEqual([`${id}:success`]);
  });

  it('the task fails upstream → failed, hold released, no charge', async () => {
    const r = await post(T2V, { prompt: 'sim-fault:fail-task' });
    const id = (JSON.parse(r.text) as { data: { task_id: string } }).data.task_id;
    expect(await waitForFamilyATask(t.h, t.token, T2V, id, 'failed')).toBe('failed');
    const hold = await holdOfTask(t.h, id);
    expect(hold?.state).not.toBe('held');
    expect(await ledgerOfTask(t.h, id)).toHaveLength(0);
  });
});
