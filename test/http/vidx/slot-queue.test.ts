// Kling's parallel tasks per account and model version, through the real HTTP server against the simulator (which
// refuses a creation over its limit with 429 / 1303): family A tasks over the limit wait in the gateway — the client
// gets code 0 and a submitted task — and are submitted first come first served as slots free, each charged once;
// 1302 is back-off too; the operator's task_slots keep the gateway under the limit without a refusal; past the
// maximum wait a task fails uncharged; a restart or a second instance on the same store keeps the queue.
import { describe, expect, it } from 'vitest';
import { klingState } from '../../../simulator/kling/index.ts';
import { useHarness, type Harness } from '../../support/harness.ts';
import { scrape, sampleValue } from '../../support/prometheus.ts';
import { holdOfTask, ledgerOfTask } from '../../support/store-rows.ts';
import { call, type TaskData, vidxHarness } from '../../support/vidx.ts';
import { eventually, until } from '../../support/wait.ts';

const T2V = '/vidx/v1/videos/text2video';
const OMNI = '/vidx/v1/videos/omni-video';

/** Wait (never a timed assertion) until every task reads `status`; the statuses last read. */
async function waitAll(h: Harness, token: string, path: string, ids: string[], status: string): Promise<string[]> {
  let last: string[] = [];
  for (const end = Date.now() + 90_000; Date.now() < end; ) {
    last = await Promise.all(
      ids.map(async (id) => (await call<TaskData>(h, token, 'GET', `${path}/${id}`)).body.data.task_status),
    );
    if (last.every((s) => s === status)) return last;
    if (last.includes('failed')) {
      // A failure is final: say why (the assertion after shows only the states).
      for (const id of ids)
        console.log(
          '[slot-queue] task',
          JSON.stringify((await call<TaskData>(h, token, 'GET', `${path}/${id}`)).body.data),
        );
      return last;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return last;
}

/**
 * The simulator's tasks here run until the test lets them end (a long task duration): every open task of `model` is
 * finished now and then, until stopped. So tasks surely wait while the first ones run, whatever the machine's speed.
 */
function finishing(h: Harness, model: string): () => void {
  const timer = setInterval(() => {
    for (const task of klingState(h.sim.ctx).tasks.values())
      if (task.model === model && task.fault === null && task.finishAt > Date.now()) task.finishAt = Date.now();
  }, 100);
  return () => clearInterval(timer);
}

const stateOf = async (h: Harness, id: string) =>
  (await h.store.db.selectFrom('tasks').select('state').where('id', '=', id).executeTakeFirstOrThrow()).state;

/** Upstream task creations the simulator took, oldest first, by our task id (their external_task_id). */
const accepted = (h: Harness, model: string) =>
  [...klingState(h.sim.ctx).tasks.values()]
    .filter((t) => t.model === model)
    .sort((a, b) => a.createdAt - b.createdAt)
    .map((t) => t.externalTaskId);

async function createMany(
  h: Harness,
  token: string,
  n: number,
  body: Record<string, unknown>,
  via: (i: number) => Harness = () => h,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await call<TaskData>(via(i), token, 'POST', T2V, {
      ...body,
      prompt: `${String(body.prompt ?? 'task')} ${i}`,
    });
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(0);
    expect(r.body.data.task_status).toBe('submitted');
    ids.push(r.body.data.task_id);
  }
  return ids;
}

async function chargedOnceEach(h: Harness, ids: string[]): Promise<void> {
  for (const id of ids) {
    expect(await ledgerOfTask(h, id)).toHaveLength(1);
    expect((await holdOfTask(h, id))?.state).toBe('settled');
  }
}

describe('a 2-slot Kling account', () => {
  const t = useHarness(vidxHarness({ sim: { taskDurationMs: 600_000, klingTaskSlots: 2 } }));

  it('six tasks of one model: none fails, the ones over the limit wait as submitted, all succeed in creation order, each charged once', async () => {
    const { secret } = await t.h.token({ quota: 1_000_000_000 });
    const ids = await createMany(t.h, secret, 6, { model_name: 'vidx-v2-6', prompt: 'six' });
    // Some wait in the gateway: the operator sees them waiting (and counted by account and model), the client sees them
    // submitted.
    const states = await Promise.all(ids.map((id) => stateOf(t.h, id)));
    expect(states.filter((s) => s === 'waiting').length).toBeGreaterThan(0);
    // The last one waiting: the head of the queue is retried now and then, and is `submitting` for the moment it is.
    const waiting = ids[states.lastIndexOf('waiting')]!;
    expect((await call<TaskData>(t.h, secret, 'GET', `${T2V}/${waiting}`)).body.data.task_status).toBe('submitted');
    const listed = (await (await t.h.admin('/admin/tasks?state=waiting')).json()) as {
      data: Array<{ id: string; slot_queue: { account: string; model: string } }>;
    };
    expect(listed.data.map((x) => x.id)).toContain(waiting);
    expect(listed.data[0]!.slot_queue).toEqual({ account: expect.stringMatching(/^kling:key-/), model: 'kling-v2-6' });
    const detail = (await (await t.h.admin(`/admin/tasks/${waiting}`)).json()) as {
      events: Array<{ kind: string; detail: string | null }>;
    };
    expect(detail.events.map((e) => e.kind)).toContain('waiting');
    const samples = await scrape(t.h);
    expect(sampleValue(samples, 'tollway_tasks_waiting', { model: 'kling-v2-6' })).toBeGreaterThan(0);
    expect(sampleValue(samples, 'tollway_tasks_open', { state: 'waiting' })).toBeGreaterThan(0);
    expect(t.h.logs.join('')).toContain('task waits in the gateway for a parallel-task slot');

    const stop = finishing(t.h, 'kling-v2-6');
    expect(await waitAll(t.h, secret, T2V, ids, 'succeed')).toEqual(ids.map(() => 'succeed'));
    stop();
    await chargedOnceEach(t.h, ids);
    // Submitted first come first served, never over the account's limit.
    expect(accepted(t.h, 'kling-v2-6')).toEqual(ids);
    expect(klingState(t.h.sim.ctx).slots.peak.get('kling-v2-6')).toBe(2);
  }, 120_000);

  it('a 1302 (rate limit) on a creation is back-off too: the task waits, then is submitted', async () => {
    const { secret } = await t.h.token({ quota: 1_000_000_000 });
    t.h.sim.faults.add({ kind: 'status', arg: 429, path: '/v1/videos/omni-video', times: 1 });
    const r = await call<TaskData>(t.h, secret, 'POST', OMNI, {
      model_name: 'vidx-v3-omni',
      prompt: 'rate limited once',
      duration: '5',
    });
    expect(r.body.code).toBe(0);
    const id = r.body.data.task_id;
    const timeline = (await (await t.h.admin(`/admin/tasks/${id}`)).json()) as {
      events: Array<{ kind: string; detail: string | null }>;
    };
    expect(timeline.events.find((e) => e.kind === 'waiting')?.detail).toMatch(
      /refused the creation for its limits \(upstream_rate_limited\)/,
    );
    const stop = finishing(t.h, 'kling-v3-omni');
    expect(await waitAll(t.h, secret, OMNI, [id], 'succeed')).toEqual(['succeed']);
    stop();
    const posts = t.h.sim
      .requestsTo('/v1/videos/omni-video')
      .filter((x) => x.method === 'POST' && (x.body as { external_task_id?: string }).external_task_id === id);
    expect(posts).toHaveLength(2);
    await chargedOnceEach(t.h, [id]);
  });

  it('while the queue is blocked: a retry with the same external_task_id is the same task; an operator cancel releases it and it is never sent', async () => {
    const { id: tokenId, secret } = await t.h.token({ quota: 1_000_000_000 });
    // Two tasks that never end hold both slots of this model version.
    await createMany(t.h, secret, 2, { model_name: 'vidx-v3', prompt: 'forever sim-fault:stay-running' });
    const first = await call<TaskData>(t.h, secret, 'POST', T2V, {
      model_name: 'vidx-v3',
      prompt: 'blocked',
      external_task_id: 'blocked-1',
    });
    const again = await call<TaskData>(t.h, secret, 'POST', T2V, {
      model_name: 'vidx-v3',
      prompt: 'blocked',
      external_task_id: 'blocked-1',
    });
    const id = first.body.data.task_id;
    expect(again.body.data.task_id).toBe(id);
    expect(await stateOf(t.h, id)).toBe('waiting');
    const holds = await t.h.store.db
      .selectFrom('holds')
      .selectAll()
      .where('token_id', '=', tokenId)
      .where('state', '=', 'held')
      .execute();
    expect(holds).toHaveLength(3);

    const c = await t.h.admin(`/admin/tasks/${id}/cancel`, { method: 'POST' });
    expect(c.status).toBe(200);
    expect(((await c.json()) as { state: string }).state).toBe('cancelled');
    expect((await holdOfTask(t.h, id))?.state).toBe('released');
    expect((await call<TaskData>(t.h, secret, 'GET', `${T2V}/${id}`)).body.data.task_status).toBe('failed');
    // Slots free up (the simulator's limit lifted): still never sent.
    t.h.sim.ctx.opts.klingTaskSlots = 0;
    await new Promise((r) => setTimeout(r, 300));
    expect(klingState(t.h.sim.ctx).byExternal.has(id)).toBe(false);
    expect(await ledgerOfTask(t.h, id)).toHaveLength(0);
    t.h.sim.ctx.opts.klingTaskSlots = 2;
  });
});

describe('the maximum wait for a slot', () => {
  const t = useHarness(vidxHarness({ sim: { klingTaskSlots: 1 }, env: { TOLLWAY_TASK_SLOT_WAIT_MS: '1000' } }));

  it('a task still waiting past it fails uncharged, with a clear error, never sent', async () => {
    const { id: tokenId, secret } = await t.h.token({ quota: 1_000_000_000 });
    await createMany(t.h, secret, 1, { model_name: 'vidx-v2-6', prompt: 'holds the slot sim-fault:stay-running' });
    const [id] = await createMany(t.h, secret, 1, { model_name: 'vidx-v2-6', prompt: 'waits' });
    const done = await waitAll(t.h, secret, T2V, [id!], 'failed');
    expect(done).toEqual(['failed']);
    const q = await call<TaskData>(t.h, secret, 'GET', `${T2V}/${id}`);
    expect(q.body.data.task_status_msg).toMatch(
      /^No upstream capacity for this model became free within the maximum wait .*not charged$/,
    );
    expect(await ledgerOfTask(t.h, id!)).toHaveLength(0);
    // The task's state is decided first (compare-and-set), its hold goes back right after.
    expect(await eventually(async () => (await holdOfTask(t.h, id!))?.state === 'released', 10_000)).toBe(true);
    const held = await t.h.store.db
      .selectFrom('holds')
      .selectAll()
      .where('token_id', '=', tokenId)
      .where('state', '=', 'held')
      .execute();
    expect(held).toHaveLength(1); // the running task's only
    expect(accepted(t.h, 'kling-v2-6')).not.toContain(id);
  });
});

describe('the cap on waiting tasks', () => {
  const t = useHarness(
    vidxHarness({
      sim: { taskDurationMs: 600_000, klingTaskSlots: 1 },
      env: { TOLLWAY_TASK_QUEUE_MAX_PER_TOKEN: '2' },
    }),
  );

  it('a creation past the cap is refused 429 in the family A envelope (1303, request id), nothing created, held or sent', async () => {
    const { id: tokenId, secret } = await t.h.token({ quota: 1_000_000_000 });
    const body = { model_name: 'vidx-v2-6', prompt: 'fills the cap' };
    await createMany(t.h, secret, 1, body); // takes the one slot
    // The next one waits, and the poller retries it (refused again: the slot stays taken). The upstream holds each of
    // its creations for a while: a retry out is a task `submitting`, which still counts toward the cap, as any task
    // not yet taken upstream.
    const [retried] = await createMany(t.h, secret, 1, { ...body, prompt: 'retried sim-fault:delay:2000' });
    await createMany(t.h, secret, 1, body);
    const row = () =>
      t.h.store.db
        .selectFrom('tasks')
        .select(['state', 'poll_attempts'])
        .where('id', '=', retried!)
        .executeTakeFirstOrThrow();
    await until(async () => {
      const r = await row();
      return r.state === 'submitting' && Number(r.poll_attempts) > 0;
    }, 'the waiting task is retried');
    const r = await call<TaskData>(t.h, secret, 'POST', T2V, { model_name: 'vidx-v2-6', prompt: 'one too many' });
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({
      code: 1303,
      message: expect.stringMatching(/already has 2 tasks waiting/),
      request_id: expect.any(String),
      data: null,
    });
    const prompts = t.h.sim
      .requestsTo('/v1/videos/text2video')
      .map((q) => (q.body as { prompt?: string } | null)?.prompt);
    expect(prompts).not.toContain('one too many');
    const rows = await t.h.store.db.selectFrom('tasks').select('id').where('token_id', '=', tokenId).execute();
    expect(rows).toHaveLength(3);
    const holds = await t.h.store.db.selectFrom('holds').select('hold_key').where('token_id', '=', tokenId).execute();
    expect(holds).toHaveLength(3);
  });
});

describe("the operator's task_slots", () => {
  // No limit upstream: only the operator's setting keeps the gateway at one task at a time.
  const t = useHarness(vidxHarness({ sim: { taskDurationMs: 200, klingTaskSlots: 0 } }));

  it('task_slots=1: the gateway never sends a second creation of the model while one is open, and every task succeeds', async () => {
    const { secret } = await t.h.token({ quota: 1_000_000_000 });
    const channels = (await (await t.h.admin('/admin/channels')).json()) as {
      data: Array<{ id: string; kind: string }>;
    };
    const kling = channels.data.find((c) => c.kind === 'kling')!;
    expect((await t.h.admin(`/admin/channels/${kling.id}`, { method: 'PATCH', json: { task_slots: 1 } })).status).toBe(
      200,
    );
    const ids = await createMany(t.h, secret, 4, { model_name: 'vidx-v2-5-turbo', prompt: 'one at a time' });
    expect(await waitAll(t.h, secret, T2V, ids, 'succeed')).toEqual(ids.map(() => 'succeed'));
    await chargedOnceEach(t.h, ids);
    expect(accepted(t.h, 'kling-v2-5-turbo')).toEqual(ids);
    expect(klingState(t.h.sim.ctx).slots.peak.get('kling-v2-5-turbo')).toBe(1);
    expect(klingState(t.h.sim.ctx).slots.refused).toBe(0);
  });
});

describe('the queue survives a restart and is shared by instances', () => {
  const t = useHarness(vidxHarness({ sim: { taskDurationMs: 600_000, klingTaskSlots: 1 } }));

  it('a restart (a new gateway on the same store) while tasks wait: they are still submitted, each once', async () => {
    const { secret } = await t.h.token({ quota: 1_000_000_000 });
    const ids = await createMany(t.h, secret, 3, { model_name: 'vidx-v1-6', prompt: 'restart' });
    expect(
      (await Promise.all(ids.map((id) => stateOf(t.h, id)))).filter((s) => s === 'waiting').length,
    ).toBeGreaterThan(0);
    await t.h.restart();
    const stop = finishing(t.h, 'kling-v1-6');
    expect(await waitAll(t.h, secret, T2V, ids, 'succeed')).toEqual(ids.map(() => 'succeed'));
    stop();
    await chargedOnceEach(t.h, ids);
    expect(accepted(t.h, 'kling-v1-6')).toEqual(ids);
  }, 120_000);

  it('two instances on one store: first come first served across them, and no task submitted twice', async () => {
    const { secret } = await t.h.token({ quota: 1_000_000_000 });
    t.h.sim.ctx.opts.klingTaskSlots = 2;
    const other = await t.h.instance();
    const viaOther: Harness = { ...t.h, url: other.url, fetch: (path, init = {}) => fetchAt(other.url, path, init) };
    const ids = await createMany(t.h, secret, 6, { model_name: 'vidx-v2-master', prompt: 'two instances' }, (i) =>
      i % 2 ? viaOther : t.h,
    );
    expect(
      (await Promise.all(ids.map((id) => stateOf(t.h, id)))).filter((st) => st === 'waiting').length,
    ).toBeGreaterThan(0);
    const stop = finishing(t.h, 'kling-v2-master');
    expect(await waitAll(t.h, secret, T2V, ids, 'succeed')).toEqual(ids.map(() => 'succeed'));
    stop();
    await chargedOnceEach(t.h, ids);
    expect(accepted(t.h, 'kling-v2-master')).toEqual(ids);
    // Nothing was sent for a task once the simulator had taken it.
    for (const task of klingState(t.h.sim.ctx).tasks.values()) {
      if (task.model !== 'kling-v2-master') continue;
      const later = t.h.sim
        .requestsTo('/v1/videos/text2video')
        .filter(
          (r) =>
            r.method === 'POST' &&
            (r.body as { external_task_id?: string }).external_task_id === task.externalTaskId &&
            r.at > task.createdAt,
        );
      expect(later).toEqual([]);
    }
  }, 120_000);
});

function fetchAt(
  base: string,
  path: string,
  init: RequestInit & { token?: string; json?: unknown } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  return fetch(base + path, { ...init, headers, body: body ?? null });
}
