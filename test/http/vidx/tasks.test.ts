// external_task_id idempotency (incl. the concurrent race), cross-token task isolation, query by
// external id, paging, failure → hold released and nothing charged, omni-video.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { holdOfTask, ledgerOfTask, tokenRow } from '../../support/store-rows.ts';
import { call, type TaskData, vidxHarness, waitStatus } from '../../support/vidx.ts';

const t = useHarness(vidxHarness());

const T2V = '/vidx/v1/videos/text2video';
const OMNI = '/vidx/v1/videos/omni-video';
const creates = () => t.h.sim.requestsTo('/v1/videos/text2video').filter((r) => r.method === 'POST').length;

describe('family A tasks', () => {
  it('same token + same external_task_id → the original task, no second upstream task or hold', async () => {
    const { id: tokenId, secret } = await t.h.token({ quota: 50_000_000 });
    const before = creates();
    const a = await call<TaskData>(t.h, secret, 'POST', T2V, { prompt: 'first', external_task_id: 'order-1' });
    const b = await call<TaskData>(t.h, secret, 'POST', T2V, {
      prompt: 'second, different body',
      external_task_id: 'order-1',
    });
    expect(a.body.code).toBe(0);
    expect(b.body.data.task_id).toBe(a.body.data.task_id);
    expect(b.body.data.task_info.external_task_id).toBe('order-1');
    expect(creates() - before).toBe(1);
    const holds = await t.h.store.db.selectFrom('holds').selectAll().where('token_id', '=', tokenId).execute();
    expect(holds).toHaveLength(1);
    // The external id is per token: another token may use it for its own task.
    const other = (await t.h.token()).secret;
    const c = await call<TaskData>(t.h, other, 'POST', T2V, { prompt: 'other', external_task_id: 'order-1' });
    expect(c.body.data.task_id).not.toBe(a.body.data.task_id);
    // Query by the caller's external id.
    const q = await call<TaskData>(t.h, secret, 'GET', `${T2V}/order-1`);
    expect(q.body.data.task_id).toBe(a.body.data.task_id);
  });

  it('concurrent creates with one external_task_id make exactly one task and one hold', async () => {
    const { id: tokenId, secret } = await t.h.token();
    const before = creates();
    const rs = await Promise.all(
      Array.from({ length: 6 }, () =>
        call<TaskData>(t.h, secret, 'POST', T2V, { prompt: 'race', external_task_id: 'race-1' }),
      ),
    );
    const ids = new Set(rs.map((r) => r.body.data?.task_id));
    expect(rs.every((r) => r.status === 200 && r.body.code === 0)).toBe(true);
    expect(ids.size).toBe(1);
    expect(creates() - before).toBe(1);
    expect(await t.h.store.db.selectFrom('holds').selectAll().where('token_id', '=', tokenId).execute()).toHaveLength(
      1,
    );
    expect(await t.h.store.db.selectFrom('tasks').selectAll().where('token_id', '=', tokenId).execute()).toHaveLength(
      1,
    );
  });

  it('another token can neither read nor list a task (by id or external id)', async () => {
    const a = (await t.h.token()).secret;
    const b = (await t.h.token()).secret;
    const task = await call<TaskData>(t.h, a, 'POST', T2V, { prompt: 'private', external_task_id: 'mine' });
    const id = task.body.data.task_id;
    for (const path of [`${T2V}/${id}`, `${T2V}/mine`]) {
      const r = await call(t.h, b, 'GET', path);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ code: 1203, data: null });
    }
    const list = await call<TaskData[]>(t.h, b, 'GET', T2V);
    expect(list.body.data.map((x) => x.task_id)).not.toContain(id);
    expect((await call<TaskData[]>(t.h, a, 'GET', T2V)).body.data.map((x) => x.task_id)).toContain(id);
  });

  it('lists newest first with pageNum/pageSize (default page size 30)', async () => {
    const s = (await t.h.token()).secret;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await call<TaskData>(t.h, s, 'POST', T2V, { prompt: `n${i}` })).body.data.task_id);
    const all = await call<TaskData[]>(t.h, s, 'GET', T2V);
    expect(all.body.data.map((task) => task.task_id)).toEqual([...ids].reverse());
    const p2 = await call<TaskData[]>(t.h, s, 'GET', `${T2V}?pageNum=2&pageSize=2`);
    expect(p2.body.data.map((task) => task.task_id)).toEqual([ids[2], ids[1]]);
    expect((await call<TaskData[]>(t.h, s, 'GET', `${T2V}?pageNum=4&pageSize=2`)).body.data).toEqual([]);
  });

  it('a failed task ends failed with a reason, its hold released and nothing charged', async () => {
    const { id: tokenId, secret } = await t.h.token({ quota: 10_000_000 });
    const task = await call<TaskData>(t.h, secret, 'POST', T2V, { prompt: 'sim-fault:fail-task please' });
    const done = await waitStatus(t.h, secret, `${T2V}/${task.body.data.task_id}`, 'failed');
    expect(done.task_status_msg).toBeTruthy();
    expect(done.task_result).toEqual({});
    expect(await ledgerOfTask(t.h, task.body.data.task_id)).toHaveLength(0);
    const hold = (await holdOfTask(t.h, task.body.data.task_id))!;
    expect(hold.state).toBe('released');
    const tok = await tokenRow(t.h, tokenId);
    expect([Number(tok.spent), Number(tok.held)]).toEqual([0, 0]);
  });

  it('a hold that does not fit the quota is refused before anything goes upstream', async () => {
    const { secret } = await t.h.token({ quota: 1000 });
    const r = await call(t.h, secret, 'POST', T2V, { prompt: 'too expensive' });
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ code: 1102, data: null });
    // Counted by its own prompt: earlier tests' tasks waiting for a slot may be created upstream meanwhile.
    const mine = t.h.sim
      .requestsTo('/v1/videos/text2video')
      .filter((q) => q.method === 'POST' && (q.body as { prompt?: unknown } | null)?.prompt === 'too expensive');
    expect(mine).toHaveLength(0);
  });

  it('an upstream refusal keeps its meaning in the vendor envelope, and leaves no task or hold', async () => {
    const { id: tokenId, secret } = await t.h.token();
    // A per-request marker: a run-wide path fault could be consumed by the poller's GET of an earlier task.
    // (A 429 — the account's rate or parallel-task limit — is not a refusal: the task waits; slot-queue.test.ts.)
    const r = await call(t.h, secret, 'POST', T2V, { prompt: 'refused sim-fault:status:400' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(1201);
    expect(r.body.data).toBeNull();
    expect(await t.h.store.db.selectFrom('tasks').selectAll().where('token_id', '=', tokenId).execute()).toHaveLength(
      0,
    );
    expect(
      await t.h.store.db
        .selectFrom('holds')
        .selectAll()
        .where('token_id', '=', tokenId)
        .where('state', '=', 'held')
        .execute(),
    ).toHaveLength(0);
  });

  it('omni-video passes the vendor body through with the upstream model name, and is metered', async () => {
    const { secret } = await t.h.token();
    const r = await call<TaskData>(t.h, secret, 'POST', OMNI, {
      model_name: 'vidx-v3-omni',
      prompt: 'a dancer <<<image_1>>>',
      image_list: [{ image_url: 'https://cdn.example.com/d.png' }],
      duration: '7',
    });
    expect(r.body.code).toBe(0);
    const up = t.h.sim
      .requestsTo('/v1/videos/omni-video')
      .filter((x) => x.method === 'POST')
      .at(-1)!.body as Record<string, unknown>;
    expect(up).toMatchObject({
      model_name: 'kling-v3-omni',
      prompt: 'a dancer <<<image_1>>>',
      image_list: [{ image_url: 'https://cdn.example.com/d.png' }],
      duration: '7',
      external_task_id: r.body.data.task_id,
    });
    const hold = (await holdOfTask(t.h, r.body.data.task_id))!;
    expect(Number(hold.amount)).toBe(7 * 600_000); // omni defaults to pro
    const done = await waitStatus(t.h, secret, `${OMNI}/${r.body.data.task_id}`, 'succeed');
    expect(done.model_name).toBe('vidx-v3-omni');
    const ledger = await ledgerOfTask(t.h, r.body.data.task_id);
    expect(ledger.map((l) => Number(l.amount))).toEqual([7.1 * 600_000]);
  });

  it('a retry while the first creation is still being submitted waits for it: the earlier attempt refused, the retry makes the task', async () => {
    const { id: tokenId, secret } = await t.h.token({ quota: 50_000_000 });
    const ext = `order-inflight-${Date.now()}`;
    // The first attempt's answer comes late (800 ms), and it is a refusal: its row is removed, its hold released.
    const first = call<TaskData>(t.h, secret, 'POST', OMNI, {
      prompt: 'a cat sim-fault:late-reply:800',
      image_list: 'not-a-list',
      external_task_id: ext,
    });
    await new Promise((res) => setTimeout(res, 200));
    const retry = await call<TaskData>(t.h, secret, 'POST', OMNI, { prompt: 'a cat', external_task_id: ext });
    const f = await first;
    expect(f.body.code).not.toBe(0);
    // Never a task id that does not exist: the retry's task is there, by our id and by the external id.
    expect(retry.body.code).toBe(0);
    const id = retry.body.data.task_id;
    expect((await call<TaskData>(t.h, secret, 'GET', `${OMNI}/${id}`)).status).toBe(200);
    expect((await call<TaskData>(t.h, secret, 'GET', `${OMNI}/${ext}`)).body.data.task_id).toBe(id);
    const holds = await t.h.store.db.selectFrom('holds').selectAll().where('token_id', '=', tokenId).execute();
    // One hold for the task (held, or settled when the fast simulated task has finished already); the refused attempt's
    // was released.
    expect(holds.filter((h) => h.state !== 'released').map((h) => h.hold_key)).toEqual([id]);
    expect(holds.filter((h) => h.state === 'released').map((h) => h.hold_key)).not.toContain(id);
    expect(holds.filter((h) => h.state === 'released')).toHaveLength(1);
  });
});
