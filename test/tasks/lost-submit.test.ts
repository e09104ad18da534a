// A gateway that stops between sending a task's creation and storing the upstream's answer, and the gateway that
// takes over (another instance on the same store, as after a restart), through the real routes, task engine and
// simulator. The stopped gateway is modelled by an instance whose poller is off and whose creation answer the
// simulator holds back (`late-reply`) or never sends (`timeout`): its row stays `submitting` like a crashed one.
// Family A tasks are found again upstream by their external_task_id (our id) and charged once; a task the upstream
// never got, and a /v1/videos task (DashScope keeps no id of ours), fail uncharged and are reported.
import { afterEach, describe, expect, it } from 'vitest';
import { klingState } from '../../simulator/kling/index.ts';
import { isClean, type ReconcileReport } from '../../src/core/reconcile.ts';
import { useHarness, type GatewayInstance } from '../support/harness.ts';
import { ledgerOfTask, tokenRow } from '../support/store-rows.ts';
import { FAST_TASK_ENV } from '../support/videos.ts';

const LEASE = 1000;
const t = useHarness({
  perTest: true,
  env: {
    ...FAST_TASK_ENV,
    TOLLWAY_TASK_POLLER: 'false',
    TOLLWAY_TASK_LEASE_MS: String(LEASE),
    TOLLWAY_DRAIN_MS: '300',
  },
  sim: { taskDurationMs: 300 },
});
// The stopped gateway's creation is still waiting for the simulator: cut it before the harness closes that gateway.
afterEach(() => t.h?.sim.close());

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never happened: ${what}`);
}

/**
 * Send a creation to the stopped gateway; resolves with our task id once its row is `submitting` and the simulator got
 * the request.
 */
async function submitAndStop(
  path: string,
  body: Record<string, unknown>,
  upstreamPath: string,
): Promise<{ id: string; answer: Promise<number> }> {
  const h = t.h;
  const answer = h.fetch(path, { method: 'POST', token: t.token, json: body }).then(
    (r) => r.status,
    () => 0,
  );
  // A family A row passes through `waiting` (its queue's compare-and-set) on its way to `submitting`.
  const row = await until('the submitting row', async () => {
    const r = await h.store.db
      .selectFrom('tasks')
      .select(['id', 'state'])
      .where('token_id', '=', t.tokenId)
      .executeTakeFirst();
    return r?.state === 'submitting' ? r : null;
  });
  await until('the creation reached the simulator', async () =>
    h.sim.requestsTo(upstreamPath).some((r) => r.method === 'POST'),
  );
  return { id: row.id, answer };
}

/**
 * The gateway that takes over: another instance on the same store with its poller running — on the event loop, so
 * that it looks for the lost task within the lease (a poller thread's start-up time would decide whether it looks
 * once or twice; test/tasks/poller-thread.test.ts covers the thread).
 */
const restarted = () => t.h.instance({ tasks: { ...t.h.config.tasks, pollerEnabled: true, pollerThread: false } });

const taskRow = (id: string) =>
  t.h.store.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const terminal = (id: string) =>
  until(`task ${id} terminal`, async () => {
    const r = await taskRow(id);
    return ['succeeded', 'failed', 'cancelled'].includes(r.state) ? r : null;
  });

async function reconcileVia(g: GatewayInstance, from: number): Promise<ReconcileReport> {
  const r = await fetch(`${g.url}/admin/reconcile?from=${from}&to=${Date.now() + 1}`, {
    headers: { authorization: `Bearer ${t.h.adminKey}` },
  });
  expect(r.status).toBe(200);
  return (await r.json()) as ReconcileReport;
}

const holdOf = (id: string) =>
  t.h.store.db.selectFrom('holds').select('state').where('hold_key', '=', id).executeTakeFirst();
const posts = (fragment: string) => t.h.sim.requestsTo(fragment).filter((r) => r.method === 'POST').length;

describe('a task whose creation answer was lost to a stopped gateway', () => {
  it('family A: found upstream by its external_task_id after the takeover, succeeds, charged exactly once, never re-submitted', async () => {
    const h = t.h;
    const from = Date.now();
    const { id, answer } = await submitAndStop(
      '/vidx/v1/videos/text2video',
      { model_name: 'vidx-v1', prompt: 'a lighthouse sim-fault:late-reply:600000', duration: '5' },
      '/v1/videos/text2video',
    );
    // The simulated account has the task under our id (its external_task_id); the answer is still held back.
    const upstreamTask = await until('the upstream task', async () => klingState(h.sim.ctx).byExternal.get(id));
    expect((await holdOf(id))?.state).toBe('held');

    const g = await restarted();
    const done = await terminal(id);
    expect(done.state).toBe('succeeded');
    expect(done.upstream_task_id).toBe(upstreamTask);
    expect(JSON.parse(done.usage!)).toMatchObject({ kind: 'video-mode', outputSeconds: 5.1 }); // the upstream's reported length
    // Written after the task's row moved (and by the poller thread, through its message port): waited for, not read at
    // once.
    await until('the found-upstream log line', async () =>
      g.logs.some((l) => l.includes(id) && l.includes('found upstream')),
    );
    const rows = await ledgerOfTask(h, id);
    expect(rows.map((r) => r.idempotency_key)).toEqual([`${id}:success`]);
    expect((await holdOf(id))?.state).toBe('settled');
    expect(await tokenRow(h, t.tokenId)).toMatchObject({ spent: Number(rows[0]!.amount), held: 0 });
    expect(posts('/v1/videos/text2video')).toBe(1);
    // The client sees it through the gateway that took over.
    const q = await fetch(`${g.url}/vidx/v1/videos/text2video/${id}`, {
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(((await q.json()) as { data: { task_status: string } }).data.task_status).toBe('succeed');
    expect((await reconcileVia(g, from)).lost_submits).toEqual([]);

    // The stopped gateway's submit ends at last (its upstream connection dies, and so does the lookup that follows:
    // the creation is unconfirmed, so the row is kept): the adopted task is left alone, and that late answer is it.
    await h.sim.close();
    expect(await answer).toBe(200);
    expect((await taskRow(id)).state).toBe('succeeded');
    expect(await ledgerOfTask(h, id)).toHaveLength(1);
    expect(await tokenRow(h, t.tokenId)).toMatchObject({ spent: Number(rows[0]!.amount), held: 0 });
  });

  it('family A: not found upstream → failed uncharged, hold released, a warn line, listed by reconcile as a lost submit', async () => {
    const h = t.h;
    const from = Date.now();
    // The upstream never processes this creation (and never answers): it has no task with our id.
    const { id, answer } = await submitAndStop(
      '/vidx/v1/videos/text2video',
      { model_name: 'vidx-v1', prompt: 'a harbour sim-fault:timeout', duration: '5' },
      '/v1/videos/text2video',
    );
    const g = await restarted();
    const done = await terminal(id);
    expect(done.state).toBe('failed');
    expect(JSON.parse(done.error!)).toMatchObject({ code: 'task_submit_lost' });
    expect(
      h.sim.requestsTo(`/v1/videos/text2video/${id}`).filter((r) => r.method === 'GET').length,
    ).toBeGreaterThanOrEqual(2); // looked for, twice
    expect(posts('/v1/videos/text2video')).toBe(1);
    expect(await ledgerOfTask(h, id)).toHaveLength(0);
    expect((await holdOf(id))?.state).toBe('released');
    expect(await tokenRow(h, t.tokenId)).toMatchObject({ spent: 0, held: 0 });
    // The line is written after the task's row moves (the test may read the row first).
    await until('the lost-submit log line', async () =>
      g.logs.some((l) => l.includes(id) && l.includes('lost submit')),
    );
    const line = g.logs.find((l) => l.includes(id) && l.includes('lost submit'));
    expect(JSON.parse(line!)).toMatchObject({ level: 40, task_id: id, channel_id: done.channel_id });

    const report = await reconcileVia(g, from);
    expect(report.lost_submits).toEqual([
      {
        task_id: id,
        token_id: t.tokenId,
        kind: done.kind,
        model: 'vidx-v1',
        channel: done.channel_id,
        created_at: Number(done.created_at),
        reason: 'The task never reached the upstream; it was not charged',
      },
    ]);
    expect(report.open_holds).toEqual([]);
    expect(report.difference).toBe(0);
    expect(isClean(report)).toBe(false); // `tollway reconcile` exits 1: the operator has a look

    await h.sim.close();
    await answer;
    expect((await taskRow(id)).state).toBe('failed'); // the stopped gateway's failing submit deletes nothing
  });

  it('/v1/videos (DashScope, no id of ours upstream): failed uncharged at the takeover, visible to the client and the operator', async () => {
    const h = t.h;
    const from = Date.now();
    const { id, answer } = await submitAndStop(
      '/v1/videos',
      { model: 'hhx-1.1-t2v', prompt: 'waves sim-fault:late-reply:600000', seconds: 3 },
      'video-synthesis',
    );
    const g = await restarted();
    const done = await terminal(id);
    expect(done.state).toBe('failed');
    expect(JSON.parse(done.error!)).toMatchObject({ code: 'task_submit_lost' });
    expect(posts('video-synthesis')).toBe(1); // never sent again
    expect(await ledgerOfTask(h, id)).toHaveLength(0);
    expect((await holdOf(id))?.state).toBe('released');
    expect(await tokenRow(h, t.tokenId)).toMatchObject({ spent: 0, held: 0 });
    // The line is written after the task's row moves (the test may read the row first).
    await until('the lost-submit log line', async () =>
      g.logs.some((l) => l.includes(id) && l.includes('lost submit')),
    );
    const line = g.logs.find((l) => l.includes(id) && l.includes('lost submit'));
    expect(JSON.parse(line!)).toMatchObject({ level: 40, task_id: id, channel_id: done.channel_id });
    expect(line).toContain('check the upstream account');

    const v = await fetch(`${g.url}/v1/videos/${id}`, { headers: { authorization: `Bearer ${t.token}` } });
    expect(v.status).toBe(200);
    expect(await v.json()).toMatchObject({ id, status: 'failed', error: { code: 'task_submit_lost' } });

    const report = await reconcileVia(g, from);
    expect(report.lost_submits).toHaveLength(1);
    expect(report.lost_submits[0]).toMatchObject({ task_id: id, model: 'hhx-1.1-t2v', channel: done.channel_id });
    expect(report.lost_submits[0]!.reason).toContain('cannot be asked');

    await h.sim.close();
    await answer;
    expect((await taskRow(id)).state).toBe('failed');
  });
});
