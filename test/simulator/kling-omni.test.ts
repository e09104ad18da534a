// The simulator's Kling multi-elements and omni-video endpoints: the selection workflow and edit tasks, and which
// models and parameters each endpoint takes.
import { describe, expect, it } from 'vitest';
import { useSimulator } from '../support/simulator.ts';
import { klingCalls } from '../support/kling-sim.ts';

const s = useSimulator({ taskDurationMs: 200 });
const { call, until } = klingCalls(s);

describe('kling simulator: multi-elements and omni', () => {
  it('runs the selection workflow and an edit task', async () => {
    const t2v = await call('POST', '/v1/videos/text2video', { prompt: 'source' });
    const done = await until(`/v1/videos/text2video/${t2v.body.data!.task_id}`, 'succeed');
    const videoId = (done.data!.task_result as { videos: Array<{ id: string }> }).videos[0]!.id;
    expect(
      (
        await call('POST', '/v1/videos/multi-elements/init-selection', {
          video_id: videoId,
          video_url: 'https://x/a.mp4',
        })
      ).body.code,
    ).toBe(1201);
    const init = await call('POST', '/v1/videos/multi-elements/init-selection', { video_id: videoId });
    expect(init.body.data).toMatchObject({ status: 0, fps: 30, width: 1280, height: 720 });
    const sid = init.body.data!.session_id!;
    const pts = [{ x: 0.5, y: 0.5 }];
    expect((await call('POST', '/v1/videos/multi-elements/preview-selection', { session_id: sid })).body.code).toBe(
      1201,
    );
    const add = await call('POST', '/v1/videos/multi-elements/add-selection', {
      session_id: sid,
      frame_index: 0,
      points: pts,
    });
    expect((add.body.data!.res as { rle_mask_list: unknown[] }).rle_mask_list).toHaveLength(1);
    expect(
      (
        await call('POST', '/v1/videos/multi-elements/delete-selection', {
          session_id: sid,
          frame_index: 0,
          points: [{ x: 0.1, y: 0.1 }],
        })
      ).body.code,
    ).toBe(1201);
    expect(
      (
        await call('POST', '/v1/videos/multi-elements/delete-selection', {
          session_id: sid,
          frame_index: 0,
          points: pts,
        })
      ).body.code,
    ).toBe(0);
    await call('POST', '/v1/videos/multi-elements/add-selection', { session_id: sid, frame_index: 3, points: pts });
    expect(
      (await call('POST', '/v1/videos/multi-elements/preview-selection', { session_id: sid })).body.data!.res,
    ).toHaveProperty('video_cover');
    expect(
      (
        await call('POST', '/v1/videos/multi-elements', {
          session_id: sid,
          edit_mode: 'swap',
          prompt: 'p',
          image_list: [],
        })
      ).body.code,
    ).toBe(1201);
    // The create body needs no model_name (the gateway sends none); a wrong one is refused.
    expect(
      (
        await call('POST', '/v1/videos/multi-elements', {
          model_name: 'kling-v2-6',
          session_id: sid,
          edit_mode: 'removal',
          prompt: 'remove it',
        })
      ).body.code,
    ).toBe(1201);
    const edit = await call('POST', '/v1/videos/multi-elements', {
      session_id: sid,
      edit_mode: 'removal',
      prompt: 'remove it',
    });
    expect(edit.body.code).toBe(0);
    const e = await until(`/v1/videos/multi-elements/${edit.body.data!.task_id}`, 'succeed');
    expect((e.data!.task_result as { videos: Array<{ session_id: string }> }).videos[0]!.session_id).toBe(sid);
    expect(
      (await call('POST', '/v1/videos/multi-elements/clear-selection', { session_id: sid })).body.data,
    ).toMatchObject({ status: 0 });
  });

  it('the endpoint × model table: text2video refuses v1-5, v2-1 and o1 (naming the model), omni takes o1; masters take no mode', async () => {
    for (const model of ['kling-v1-5', 'kling-v2-1', 'kling-video-o1']) {
      const r = await call('POST', '/v1/videos/text2video', { model_name: model, prompt: 'x' });
      expect([r.status, r.body.code], model).toEqual([400, 1201]);
      expect(r.body.message).toBe(`model_name '${model}' is not supported by text2video`);
    }
    for (const model of [
      'kling-v1',
      'kling-v1-6',
      'kling-v2-5-turbo',
      'kling-v2-6',
      'kling-v3',
      'kling-v2-master',
      'kling-v2-1-master',
    ]) {
      expect((await call('POST', '/v1/videos/text2video', { model_name: model, prompt: 'x' })).body.code, model).toBe(
        0,
      );
    }
    for (const model of ['kling-v2-master', 'kling-v2-1-master']) {
      const r = await call('POST', '/v1/videos/text2video', { model_name: model, prompt: 'x', mode: 'std' });
      expect([r.status, r.body.code, r.body.message]).toEqual([400, 1201, `mode is not supported by ${model}`]);
    }
    expect(
      (await call('POST', '/v1/videos/text2video', { model_name: 'kling-v2-6', prompt: 'x', mode: 'std' })).body.code,
    ).toBe(0);
  });

  it('o1 on omni-video: aspect_ratio required without a first frame, no negative_prompt/cfg_scale/camera_control, "5"/"10" text-only, "3"–"10" with media', async () => {
    const o1 = (extra: Record<string, unknown>) =>
      call('POST', '/v1/videos/omni-video', { model_name: 'kling-video-o1', prompt: 'a fox', ...extra });
    const noRatio = await o1({});
    expect([noRatio.body.code, noRatio.body.message]).toEqual([
      1201,
      'aspect_ratio is required when no first frame is given',
    ]);
    expect(
      (await o1({ image_list: [{ image_url: 'https://cdn.example.com/f.png', type: 'first_frame' }] })).body.code,
    ).toBe(0);
    const ok = await o1({ aspect_ratio: '16:9', mode: 'std', duration: '10', sound: 'on' });
    expect(ok.body.code).toBe(0);
    for (const f of [{ negative_prompt: 'blur' }, { cfg_scale: 0.5 }, { camera_control: { type: 'down_back' } }]) {
      const r = await o1({ aspect_ratio: '16:9', ...f });
      expect([r.body.code, r.body.message]).toEqual([1201, `${Object.keys(f)[0]} is not supported by kling-video-o1`]);
    }
    expect((await o1({ aspect_ratio: '16:9', duration: '7' })).body.code).toBe(1201);
    const media = { image_list: [{ image_url: 'https://cdn.example.com/r.png' }] };
    expect((await o1({ aspect_ratio: '16:9', duration: '7', ...media })).body.code).toBe(0);
    expect((await o1({ aspect_ratio: '16:9', duration: '11', ...media })).body.code).toBe(1201);
    // v3-omni: 3–15 without media, and no aspect_ratio rule.
    expect(
      (await call('POST', '/v1/videos/omni-video', { model_name: 'kling-v3-omni', prompt: 'o', duration: '15' })).body
        .code,
    ).toBe(0);
    await until(`/v1/videos/omni-video/${ok.body.data!.task_id}`, 'succeed');
  });

  it('omni-video takes kling-v3-omni and refuses other models', async () => {
    const ok = await call('POST', '/v1/videos/omni-video', { model_name: 'kling-v3-omni', prompt: 'o', duration: '7' });
    expect(ok.body.code).toBe(0);
    expect((await call('POST', '/v1/videos/omni-video', { model_name: 'kling-v1', prompt: 'o' })).body.code).toBe(1201);
    await until(`/v1/videos/omni-video/${ok.body.data!.task_id}`, 'succeed');
  });
});
