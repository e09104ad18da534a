// Which upstream endpoint serves each text2video model (catalogue data, upstream-protocols.md §7): the classic
// text2video models go to the upstream's text2video under their catalogue name; o1 is created, finished and charged
// through omni-video while the client sees an ordinary text2video task; v1-5 and v2-1 are refused before any hold or
// upstream call; the master models take no mode
// (an explicit std, the contract's default, is accepted and not forwarded).
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { holdOfTask, ledgerOfTask, tokenRow } from '../../support/store-rows.ts';
import { call, type TaskData, vidxHarness, waitStatus } from '../../support/vidx.ts';

const T2V = '/vidx/v1/videos/text2video';
const OMNI = '/vidx/v1/videos/omni-video';
const ON_TEXT2VIDEO = [
  'vidx-v1',
  'vidx-v1-6',
  'vidx-v2-master',
  'vidx-v2-1-master',
  'vidx-v2-5-turbo',
  'vidx-v2-6',
  'vidx-v3',
];

const t = useHarness(vidxHarness());
const posts = () => t.h.sim.recorded.filter((r) => r.method === 'POST').length;

describe('text2video models and their upstream endpoints', () => {
  it.each(ON_TEXT2VIDEO)('%s is created on the upstream text2video under its catalogue name', async (model) => {
    const r = await call<TaskData>(t.h, t.token, 'POST', T2V, { model_name: model, prompt: `allowed ${model}` });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const up = t.h.sim
      .requestsTo('/v1/videos/text2video')
      .filter((x) => x.method === 'POST' && JSON.stringify(x.body).includes(`allowed ${model}"`));
    expect(up).toHaveLength(1);
    const sent = up[0]!.body as Record<string, unknown>;
    expect(sent.model_name).toBe(t.h.gw.deps.catalogue.resolve(model)!.upstreamModel);
    // Master models have no std/pro mode: none goes up.
    expect('mode' in sent).toBe(!model.endsWith('-master'));
    const q = await call<TaskData>(t.h, t.token, 'GET', `${T2V}/${r.body.data.task_id}`);
    expect(q.body.data.model_name).toBe(model);
  });

  it('vidx-video-o1 is a text-only omni-video task upstream, an ordinary text2video task to the client, charged once at success', async () => {
    const { id: tokenId, secret } = await t.h.token({ quota: 100_000_000 });
    const c = await call<TaskData>(t.h, secret, 'POST', T2V, {
      model_name: 'vidx-video-o1',
      prompt: 'a paper boat on a river',
      duration: '10',
      external_task_id: 'o1-order',
    });
    expect(c.body.code).toBe(0);
    const id = c.body.data.task_id;
    const up = t.h.sim
      .requestsTo('/v1/videos/omni-video')
      .filter((x) => x.method === 'POST' && (x.body as { external_task_id?: string }).external_task_id === id);
    expect(up).toHaveLength(1);
    // The contract's defaults at our side: mode std, aspect_ratio 16:9 (required upstream without a first frame).
    expect(up[0]!.body).toEqual({
      model_name: 'kling-video-o1',
      prompt: 'a paper boat on a river',
      mode: 'std',
      aspect_ratio: '16:9',
      duration: '10',
      external_task_id: id,
    });
    expect(
      t.h.sim
        .requestsTo('/v1/videos/text2video')
        .some((x) => x.method === 'POST' && JSON.stringify(x.body).includes('paper boat')),
    ).toBe(false);
    expect(Number((await holdOfTask(t.h, id))!.amount)).toBe(10 * 400_000);

    const done = await waitStatus(t.h, secret, `${T2V}/${id}`, 'succeed');
    expect(done.model_name).toBe('vidx-video-o1');
    expect(done.task_result.videos).toHaveLength(1);
    // Polled at the omni path upstream; never looked up at text2video.
    expect(t.h.sim.requestsTo('/v1/videos/omni-video').filter((x) => x.method === 'GET').length).toBeGreaterThan(0);
    expect(t.h.sim.requestsTo(`/v1/videos/text2video/${id}`)).toHaveLength(0);
    // In the text2video list and by external id; not under omni-video.
    expect((await call<TaskData[]>(t.h, secret, 'GET', T2V)).body.data.map((x) => x.task_id)).toContain(id);
    expect((await call<TaskData>(t.h, secret, 'GET', `${T2V}/o1-order`)).body.data.task_id).toBe(id);
    expect((await call(t.h, secret, 'GET', `${OMNI}/${id}`)).status).toBe(404);
    expect((await call<TaskData[]>(t.h, secret, 'GET', OMNI)).body.data.map((x) => x.task_id)).not.toContain(id);
    // Charged once, by the reported seconds at the std price.
    await call(t.h, secret, 'GET', `${T2V}/${id}`);
    const ledger = await ledgerOfTask(t.h, id);
    expect(ledger.map((l) => Number(l.amount))).toEqual([10.1 * 400_000]);
    const tok = await tokenRow(t.h, tokenId);
    expect([Number(tok.spent), Number(tok.held)]).toEqual([10.1 * 400_000, 0]);
  });

  it.each([
    ['negative_prompt', 'blurry'],
    ['cfg_scale', 0.5],
    ['camera_control', { type: 'down_back' }],
  ])('vidx-video-o1 with %s is refused naming the field, before anything goes upstream', async (field, value) => {
    const before = posts();
    const r = await call(t.h, t.token, 'POST', T2V, { model_name: 'vidx-video-o1', prompt: 'x', [field]: value });
    expect([r.status, r.body.code]).toEqual([400, 1201]);
    expect(r.body.message).toContain(`${field} is not supported by vidx-video-o1`);
    expect(posts()).toBe(before);
  });

  it.each(['vidx-v1-5', 'vidx-v2-1'])(
    '%s is refused as not supporting text-to-video, with no upstream call and no hold',
    async (model) => {
      const { id: tokenId, secret } = await t.h.token({ quota: 50_000_000 });
      const before = posts();
      const r = await call(t.h, secret, 'POST', T2V, { model_name: model, prompt: 'a kite', cfg_scale: 0.5 });
      expect([r.status, r.body.code]).toEqual([400, 1201]);
      expect(r.body.message).toBe(`The model '${model}' does not support text-to-video`);
      expect(posts()).toBe(before);
      expect(t.h.sim.recorded.filter((x) => JSON.stringify(x.body ?? '').includes('a kite'))).toHaveLength(0);
      const tok = await tokenRow(t.h, tokenId);
      expect([Number(tok.spent), Number(tok.held)]).toEqual([0, 0]);
      expect(await t.h.store.db.selectFrom('holds').selectAll().where('token_id', '=', tokenId).execute()).toHaveLength(
        0,
      );
      expect(await t.h.store.db.selectFrom('tasks').selectAll().where('token_id', '=', tokenId).execute()).toHaveLength(
        0,
      );
    },
  );

  it.each(['vidx-v2-master', 'vidx-v2-1-master'])(
    '%s: an explicit mode std (the contract default) is accepted and not forwarded; pro is refused naming the field',
    async (model) => {
      const std = await call<TaskData>(t.h, t.token, 'POST', T2V, {
        model_name: model,
        prompt: `std ${model}`,
        mode: 'std',
      });
      expect(std.status, JSON.stringify(std.body)).toBe(200);
      const up = t.h.sim
        .requestsTo('/v1/videos/text2video')
        .filter((x) => x.method === 'POST' && JSON.stringify(x.body).includes(`std ${model}"`));
      expect(up).toHaveLength(1);
      expect('mode' in (up[0]!.body as Record<string, unknown>)).toBe(false);
      const before = posts();
      for (const mode of ['pro', 'fast', 1]) {
        const r = await call(t.h, t.token, 'POST', T2V, { model_name: model, prompt: 'x', mode });
        expect([r.status, r.body.code]).toEqual([400, 1201]);
        expect(r.body.message).toBe(
          `mode is not supported by ${model}: it has no std/pro mode; omit the field or send std`,
        );
        expect(r.body.request_id).toEqual(expect.any(String));
      }
      expect(posts()).toBe(before);
    },
  );

  it('a master model without mode is held and charged at its one price', async () => {
    const { secret } = await t.h.token({ quota: 100_000_000 });
    const c = await call<TaskData>(t.h, secret, 'POST', T2V, { model_name: 'vidx-v2-1-master', prompt: 'a glacier' });
    expect(Number((await holdOfTask(t.h, c.body.data.task_id))!.amount)).toBe(5 * 1_000_000);
    await waitStatus(t.h, secret, `${T2V}/${c.body.data.task_id}`, 'succeed');
    expect((await ledgerOfTask(t.h, c.body.data.task_id)).map((l) => Number(l.amount))).toEqual([5.1 * 1_000_000]);
  });
});

// No poller: only the upstream's callback (or the lost-submit lookup) can move a task, so each is seen to use
// omni-video.
describe('an o1 text2video task upstream: recovered and called back at omni-video', () => {
  const u = useHarness(vidxHarness({ env: { TOLLWAY_TASK_POLLER: '0' } }));

  it('a creation whose answer was lost is found by our id at omni-video (not text2video)', async () => {
    const { secret } = await u.h.token();
    const c = await call<TaskData>(u.h, secret, 'POST', T2V, {
      model_name: 'vidx-video-o1',
      prompt: 'a lantern sim-fault:lost-reply',
    });
    expect(c.body.code).toBe(0);
    const id = c.body.data.task_id;
    expect(u.h.sim.requestsTo(`/v1/videos/omni-video/${id}`).filter((x) => x.method === 'GET')).toHaveLength(1);
    expect(u.h.sim.requestsTo(`/v1/videos/text2video/${id}`)).toHaveLength(0);
    const row = await u.h.store.db
      .selectFrom('tasks')
      .select(['state', 'upstream_task_id', 'kind'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.upstream_task_id).toBeTruthy();
    expect(['queued', 'in_progress']).toContain(row.state);
  });

  it('the upstream callback refreshes the task from omni-video; the client reads it at text2video', async () => {
    u.h.config.publicUrl = u.h.url;
    const { secret } = await u.h.token();
    const c = await call<TaskData>(u.h, secret, 'POST', T2V, { model_name: 'vidx-video-o1', prompt: 'call me back' });
    const id = c.body.data.task_id;
    const sent = u.h.sim
      .requestsTo('/v1/videos/omni-video')
      .filter((r) => r.method === 'POST')
      .at(-1)!.body as { callback_url: string; external_task_id: string };
    expect(sent.external_task_id).toBe(id);
    expect(sent.callback_url.startsWith(`${u.h.url}/vidx/callbacks/kling/${id}.`)).toBe(true);
    const row = await u.h.store.db
      .selectFrom('tasks')
      .select('upstream_task_id')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    for (let i = 0; i < 200; i++) {
      const s = await u.h.store.db.selectFrom('tasks').select('state').where('id', '=', id).executeTakeFirstOrThrow();
      if (s.state === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(
      u.h.sim.requestsTo(`/v1/videos/omni-video/${row.upstream_task_id}`).filter((x) => x.method === 'GET').length,
    ).toBeGreaterThan(0);
    const q = await call<TaskData>(u.h, secret, 'GET', `${T2V}/${id}`);
    expect(q.body.data.task_status).toBe('succeed');
    expect(await ledgerOfTask(u.h, id)).toHaveLength(1);
  });
});
