// The full editing workflow through the real server against the simulator, session ownership and
// the 24-hour expiry we enforce ourselves.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { holdOfTask, ledgerOfTask } from '../../support/store-rows.ts';
import { call, type TaskData, vidxHarness, waitStatus } from '../../support/vidx.ts';

const t = useHarness(vidxHarness());

const T2V = '/vidx/v1/videos/text2video';
const ME = '/vidx/v1/videos/multi-elements';

interface InitData {
  status: number;
  session_id: string;
  fps: number;
  original_duration: number;
  width: number;
  height: number;
  total_frame: number;
  normalized_video: string;
}

describe('multi-element editing workflow', () => {
  it('init from our own video → add → delete → preview → clear → add → edit → query → list', async () => {
    const { id: tokenId, secret } = await t.h.token();
    // A source video produced through us: its id is ours, mapped to the upstream's on init.
    const src = await call<TaskData>(t.h, secret, 'POST', T2V, { prompt: 'a kitchen table with a cup' });
    const srcDone = await waitStatus(t.h, secret, `${T2V}/${src.body.data.task_id}`, 'succeed');
    const videoId = srcDone.task_result.videos![0]!.id;

    const init = await call<InitData>(t.h, secret, 'POST', `${ME}/init-selection`, { video_id: videoId });
    expect(init.status).toBe(200);
    expect(init.body.code).toBe(0);
    const d = init.body.data;
    expect(d).toMatchObject({ status: 0, fps: 30, width: 1280, height: 720 });
    expect(d.session_id).toMatch(/^sess_[0-9a-f]{32}$/);
    expect(typeof d.original_duration).toBe('number');
    expect(d.total_frame).toBeGreaterThan(0);
    expect(typeof d.normalized_video).toBe('string');
    const sid = d.session_id;
    // What went upstream is the upstream's video id, never ours.
    const upInit = t.h.sim.requestsTo('/multi-elements/init-selection').at(-1)!.body as { video_id: string };
    expect(upInit.video_id).not.toBe(videoId);
    expect(upInit.video_id).toMatch(/^\d+$/);
    const row = await t.h.store.db.selectFrom('sessions').selectAll().where('id', '=', sid).executeTakeFirstOrThrow();
    expect(row.token_id).toBe(tokenId);
    expect(Number(row.expires_at) - Number(row.created_at)).toBe(24 * 3600 * 1000);

    const pts = [
      { x: 0.4, y: 0.6 },
      { x: 0.45, y: 0.62 },
    ];
    const add = await call<{ session_id: string; res: { frame_index: number; rle_mask_list: unknown[] } }>(
      t.h,
      secret,
      'POST',
      `${ME}/add-selection`,
      {
        session_id: sid,
        frame_index: 12,
        points: pts,
      },
    );
    expect(add.body.code).toBe(0);
    expect(add.body.data.session_id).toBe(sid);
    expect(add.body.data.res.frame_index).toBe(12);
    expect(add.body.data.res.rle_mask_list).toHaveLength(1);
    const del = await call<{ res: { rle_mask_list: unknown[] } }>(t.h, secret, 'POST', `${ME}/delete-selection`, {
      session_id: sid,
      frame_index: 12,
      points: pts,
    });
    expect(del.body.code).toBe(0);
    expect(del.body.data.res.rle_mask_list).toHaveLength(0);
    await call(t.h, secret, 'POST', `${ME}/add-selection`, { session_id: sid, frame_index: 3, points: pts });
    const prev = await call<{ session_id: string; res: { video: string; video_cover: string } }>(
      t.h,
      secret,
      'POST',
      `${ME}/preview-selection`,
      {
        session_id: sid,
      },
    );
    expect(prev.body.code).toBe(0);
    expect(prev.body.data.session_id).toBe(sid);
    expect(prev.body.data.res.video).toBeTruthy();
    expect(prev.body.data.res.video_cover).toBeTruthy();
    const clear = await call<{ status: number; session_id: string }>(t.h, secret, 'POST', `${ME}/clear-selection`, {
      session_id: sid,
    });
    expect(clear.body.data).toEqual({ status: 0, session_id: sid });
    await call(t.h, secret, 'POST', `${ME}/add-selection`, {
      session_id: sid,
      frame_index: 0,
      points: [{ x: 0.5, y: 0.5 }],
    });

    const create = await call<TaskData>(t.h, secret, 'POST', ME, {
      model_name: 'vidx-v1-6',
      session_id: sid,
      edit_mode: 'swap',
      image_list: [{ image: 'https://cdn.example.com/mug.png' }],
      prompt: 'swap the cup for a mug',
      mode: 'pro',
    });
    expect(create.body.code).toBe(0);
    expect(create.body.data.task_status).toBe('submitted');
    const upEdit = t.h.sim
      .requestsTo('/v1/videos/multi-elements')
      .filter((r) => r.method === 'POST' && r.path === '/v1/videos/multi-elements')
      .at(-1)!.body as Record<string, unknown>;
    expect(upEdit.session_id).toBe(row.upstream_session_id);
    // The multi-elements create body carries no model_name (catalogue data: its endpoint has one model).
    expect('model_name' in upEdit).toBe(false);
    // Priced by the edit entry (pro tier), shown as vidx-v1-6.
    const hold = (await holdOfTask(t.h, create.body.data.task_id))!;
    expect(Number(hold.amount)).toBe(5 * 980_000);

    const done = await waitStatus(t.h, secret, `${ME}/${create.body.data.task_id}`, 'succeed');
    expect(done.session_id).toBe(sid);
    expect(done.model_name).toBe('vidx-v1-6');
    const v = done.task_result.videos![0]!;
    expect(v).toMatchObject({ session_id: sid, duration: '5.1' });
    expect(v.id).toMatch(/^video_/);
    const ledger = await ledgerOfTask(t.h, create.body.data.task_id);
    expect(ledger.map((l) => [l.model, Number(l.amount)])).toEqual([['vidx-v1-6', 5.1 * 980_000]]);

    const list = await call<TaskData[]>(t.h, secret, 'GET', `${ME}?pageNum=1&pageSize=10`);
    expect(list.body.data.map((tok) => tok.task_id)).toEqual([create.body.data.task_id]);
    // The text2video task is not an edit task, and vice versa.
    expect((await call(t.h, secret, 'GET', `${ME}/${src.body.data.task_id}`)).status).toBe(404);
    expect((await call(t.h, secret, 'GET', `${T2V}/${create.body.data.task_id}`)).status).toBe(404);
  });

  it('a session belongs to its token; another token gets not-found everywhere', async () => {
    const a = (await t.h.token()).secret;
    const b = (await t.h.token()).secret;
    const init = await call<InitData>(t.h, a, 'POST', `${ME}/init-selection`, {
      video_url: 'https://cdn.example.com/clip.mp4',
    });
    const sid = init.body.data.session_id;
    const before = t.h.sim.recorded.filter((r) => r.method === 'POST').length;
    for (const [path, body] of [
      [`${ME}/add-selection`, { session_id: sid, frame_index: 0, points: [{ x: 0.5, y: 0.5 }] }],
      [`${ME}/clear-selection`, { session_id: sid }],
      [`${ME}/preview-selection`, { session_id: sid }],
      [ME, { session_id: sid, edit_mode: 'removal', prompt: 'x' }],
    ] as const) {
      const r = await call(t.h, b, 'POST', path, body);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ code: 1203, data: null });
    }
    expect(t.h.sim.recorded.filter((r) => r.method === 'POST').length).toBe(before);
    // Token B cannot start a session from A's video either.
    const tok = await call<TaskData>(t.h, a, 'POST', T2V, { prompt: 'p' });
    const vid = (await waitStatus(t.h, a, `${T2V}/${tok.body.data.task_id}`, 'succeed')).task_result.videos![0]!.id;
    expect((await call(t.h, b, 'POST', `${ME}/init-selection`, { video_id: vid })).status).toBe(404);
    expect((await call(t.h, a, 'POST', `${ME}/clear-selection`, { session_id: sid })).status).toBe(200);
  });

  it('an expired session is refused by us (24 h from creation), before anything goes upstream', async () => {
    const a = (await t.h.token()).secret;
    const init = await call<InitData>(t.h, a, 'POST', `${ME}/init-selection`, {
      video_url: 'https://cdn.example.com/clip.mov',
    });
    const sid = init.body.data.session_id;
    await call(t.h, a, 'POST', `${ME}/add-selection`, {
      session_id: sid,
      frame_index: 1,
      points: [{ x: 0.1, y: 0.1 }],
    });
    // 24 hours later (the upstream still has the session: we must refuse on our own).
    await t.h.store.db
      .updateTable('sessions')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', sid)
      .execute();
    const before = t.h.sim.recorded.filter((r) => r.method === 'POST').length;
    for (const [path, body] of [
      [`${ME}/add-selection`, { session_id: sid, frame_index: 0, points: [{ x: 0.5, y: 0.5 }] }],
      [`${ME}/preview-selection`, { session_id: sid }],
      [ME, { session_id: sid, edit_mode: 'removal', prompt: 'x' }],
    ] as const) {
      const r = await call(t.h, a, 'POST', path, body);
      expect(r.status).toBe(410);
      expect(r.body.code).toBe(1201);
      expect(r.body.data).toBeNull();
      expect(r.body.message).toMatch(/expired/);
    }
    expect(t.h.sim.recorded.filter((r) => r.method === 'POST').length).toBe(before);
  });
});
