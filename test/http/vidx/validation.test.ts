// Table-driven: every family A field rule and limit through the real server, with the exact
// HTTP status, vendor code and the envelope `{code, message, request_id, data:null}`.
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { call, type TaskData, vidxHarness, waitStatus } from '../../support/vidx.ts';
import type { AErr } from '../../support/error-shapes.ts';

const t = useHarness(vidxHarness());
let narrow: string; // allow-list: vidx-v1 only
let sessionId: string;

const T2V = '/vidx/v1/videos/text2video';
const ME = '/vidx/v1/videos/multi-elements';
const OMNI = '/vidx/v1/videos/omni-video';
const CB = 'https://callbacks.invalid/hook';

beforeAll(async () => {
  narrow = (await t.h.token({ models: ['vidx-v1'] })).secret;
  const init = await call<{ session_id: string }>(t.h, t.token, 'POST', `${ME}/init-selection`, {
    video_url: 'https://cdn.example.com/source.mp4',
  });
  expect(init.body.code).toBe(0);
  sessionId = init.body.data.session_id;
});

interface Case {
  name: string;
  path: string;
  body?: unknown;
  method?: string;
  status: number;
  code: number;
  /** Token to use: 'narrow' = allow-list of vidx-v1 only. */
  as?: 'narrow';
  contains?: string;
}

const p = (extra: Record<string, unknown>) => ({ prompt: 'a red fox', ...extra });
const bad = (name: string, path: string, body: unknown, contains?: string): Case => ({
  name,
  path,
  body,
  status: 400,
  code: 1201,
  ...(contains ? { contains } : {}),
});
const good = (name: string, path: string, body: unknown): Case => ({ name, path, body, status: 200, code: 0 });
const edit = (extra: Record<string, unknown>) => ({
  session_id: 'SESSION',
  edit_mode: 'removal',
  prompt: 'remove the cup',
  ...extra,
});

const CASES: Case[] = [
  // text2video: model_name
  good('model_name defaults to vidx-v1', T2V, p({})),
  good('every allowed model is admitted (vidx-video-o1)', T2V, p({ model_name: 'vidx-video-o1' })),
  good('vidx-v2-5 is normalised', T2V, p({ model_name: 'vidx-v2-5' })),
  bad('vidx-v3-omni points to omni-video', T2V, p({ model_name: 'vidx-v3-omni' }), '/vidx/v1/videos/omni-video'),
  bad('3.0 turbo is refused', T2V, p({ model_name: 'vidx-v3-turbo' }), 'not admitted'),
  bad('a model of another kind is refused', T2V, p({ model_name: 'qwx3.7-plus' }), 'not a text-to-video model'),
  bad('model_name must be a string', T2V, p({ model_name: 7 })),
  { name: 'unknown model is model_not_found', path: T2V, body: p({ model_name: 'vidx-v9' }), status: 404, code: 1203 },
  {
    name: 'model outside the token allow-list is model_not_found',
    path: T2V,
    body: p({ model_name: 'vidx-v2-6' }),
    status: 404,
    code: 1203,
    as: 'narrow',
  },
  // text2video: prompt / negative_prompt (≤ 2500 characters)
  bad('prompt is required', T2V, {}),
  bad('prompt must not be blank', T2V, { prompt: '   ' }),
  bad('prompt of 2501 characters', T2V, { prompt: 'x'.repeat(2501) }, '2500'),
  good('prompt of 2500 characters', T2V, { prompt: 'x'.repeat(2500) }),
  good('2500 characters counted as characters, not UTF-16 units', T2V, { prompt: '🦊'.repeat(2500) }),
  bad('prompt must be a string', T2V, { prompt: 42 }),
  bad('negative_prompt must be a string', T2V, p({ negative_prompt: ['no'] })),
  // text2video: cfg_scale ([0,1], v1/v1-5/v1-6 only)
  good('cfg_scale 0 on vidx-v1', T2V, p({ model_name: 'vidx-v1', cfg_scale: 0 })),
  good('cfg_scale 1 on vidx-v1-6', T2V, p({ model_name: 'vidx-v1-6', cfg_scale: 1 })),
  bad('cfg_scale above 1', T2V, p({ cfg_scale: 1.01 })),
  bad('cfg_scale below 0', T2V, p({ cfg_scale: -0.1 })),
  bad('cfg_scale as a string', T2V, p({ cfg_scale: '0.5' })),
  bad('cfg_scale on the v2 series', T2V, p({ model_name: 'vidx-v2-master', cfg_scale: 0.5 }), 'not supported'),
  // text2video: sound
  good('sound on for vidx-v2-6', T2V, p({ model_name: 'vidx-v2-6', sound: 'on' })),
  bad(
    'sound for another model',
    T2V,
    p({ model_name: 'vidx-v2-5-turbo', sound: 'off' }),
    'sound is not supported by vidx-v2-5-turbo',
  ),
  bad(
    'a model with no text-to-video endpoint (image-to-video only upstream)',
    T2V,
    p({ model_name: 'vidx-v2-1' }),
    'does not support text-to-video',
  ),
  bad(
    'mode for a master model',
    T2V,
    p({ model_name: 'vidx-v2-master', mode: 'pro' }),
    'mode is not supported by vidx-v2-master',
  ),
  bad('o1 duration "7" (text-only: 5 or 10)', T2V, p({ model_name: 'vidx-video-o1', duration: '7' })),
  bad('sound other than on/off', T2V, p({ model_name: 'vidx-v2-6', sound: 'loud' })),
  // text2video: mode, aspect_ratio, duration
  good('mode pro', T2V, p({ mode: 'pro' })),
  bad('mode other than std/pro', T2V, p({ mode: 'fast' })),
  good('aspect_ratio 9:16', T2V, p({ aspect_ratio: '9:16' })),
  bad('aspect_ratio 4:3', T2V, p({ aspect_ratio: '4:3' })),
  good('duration "10"', T2V, p({ duration: '10' })),
  bad('duration as a number is rejected', T2V, p({ duration: 5 }), 'string'),
  bad('duration "7"', T2V, p({ duration: '7' })),
  // text2video: camera_control
  good(
    'camera simple with one non-zero field',
    T2V,
    p({
      camera_control: { type: 'simple', config: { horizontal: -10, vertical: 0, pan: 0, tilt: 0, roll: 0, zoom: 0 } },
    }),
  ),
  good('camera preset without config', T2V, p({ camera_control: { type: 'down_back' } })),
  bad('camera type outside the five', T2V, p({ camera_control: { type: 'zoom_in' } })),
  bad('camera type missing', T2V, p({ camera_control: { config: { zoom: 1 } } })),
  bad('camera_control not an object', T2V, p({ camera_control: 'simple' })),
  bad('config required for simple', T2V, p({ camera_control: { type: 'simple' } }), 'required'),
  bad('horizontal above 10', T2V, p({ camera_control: { type: 'simple', config: { horizontal: 10.5 } } })),
  bad('horizontal below -10', T2V, p({ camera_control: { type: 'simple', config: { horizontal: -11 } } })),
  bad(
    'two non-zero fields',
    T2V,
    p({ camera_control: { type: 'simple', config: { horizontal: 1, zoom: 2 } } }),
    'exactly one',
  ),
  bad(
    'no non-zero field',
    T2V,
    p({ camera_control: { type: 'simple', config: { horizontal: 0, zoom: 0 } } }),
    'exactly one',
  ),
  bad('unknown config field', T2V, p({ camera_control: { type: 'simple', config: { yaw: 1 } } })),
  bad('config with a preset type', T2V, p({ camera_control: { type: 'forward_up', config: { zoom: 1 } } })),
  // text2video: watermark_info, callback_url, external_task_id
  good(
    'watermark_info, callback_url and external_task_id accepted',
    T2V,
    p({ watermark_info: { enabled: true }, callback_url: CB, external_task_id: 'order-accepted-1' }),
  ),
  bad('watermark_info not an object', T2V, p({ watermark_info: 'yes' })),
  bad('callback_url not http(s)', T2V, p({ callback_url: 'ftp://example.com/x' })),
  bad('callback_url not a URL', T2V, p({ callback_url: 'hook' })),
  bad(
    'callback_url on loopback (private networks not allowed)',
    T2V,
    p({ callback_url: 'http://127.0.0.1:9/hook' }),
    'public address',
  ),
  bad('callback_url on localhost', T2V, p({ callback_url: 'http://localhost/hook' })),
  bad('external_task_id empty', T2V, p({ external_task_id: '' })),
  bad('external_task_id too long', T2V, p({ external_task_id: 'e'.repeat(201) })),
  bad('external_task_id not a string', T2V, p({ external_task_id: 12 })),
  bad('body must be an object', T2V, [1, 2]),

  // selection calls (≤ 10 points, x/y in [0,1])
  bad('init-selection with neither video_id nor video_url', `${ME}/init-selection`, {}, 'exactly one'),
  bad(
    'init-selection with both',
    `${ME}/init-selection`,
    { video_id: 'video_0', video_url: 'https://cdn.example.com/a.mp4' },
    'exactly one',
  ),
  bad('init-selection video_url not http(s)', `${ME}/init-selection`, { video_url: 'file:///etc/passwd' }),
  {
    name: 'init-selection with an unknown video_id',
    path: `${ME}/init-selection`,
    body: { video_id: 'video_0123456789abcdef0123456789abcdef_0' },
    status: 404,
    code: 1203,
  },
  good('add-selection with 10 points', `${ME}/add-selection`, {
    session_id: 'SESSION',
    frame_index: 0,
    points: Array.from({ length: 10 }, (_, i) => ({ x: i / 10, y: 1 - i / 10 })),
  }),
  bad('add-selection without session_id', `${ME}/add-selection`, { frame_index: 0, points: [{ x: 0.5, y: 0.5 }] }),
  bad('add-selection without frame_index', `${ME}/add-selection`, {
    session_id: 'SESSION',
    points: [{ x: 0.5, y: 0.5 }],
  }),
  bad('frame_index not an integer', `${ME}/add-selection`, {
    session_id: 'SESSION',
    frame_index: 1.5,
    points: [{ x: 0.5, y: 0.5 }],
  }),
  bad('points missing', `${ME}/add-selection`, { session_id: 'SESSION', frame_index: 0 }),
  bad('points empty', `${ME}/add-selection`, { session_id: 'SESSION', frame_index: 0, points: [] }),
  bad('11 points', `${ME}/add-selection`, {
    session_id: 'SESSION',
    frame_index: 0,
    points: Array.from({ length: 11 }, () => ({ x: 0.5, y: 0.5 })),
  }),
  bad('x above 1', `${ME}/add-selection`, { session_id: 'SESSION', frame_index: 0, points: [{ x: 1.2, y: 0.5 }] }),
  bad('y below 0', `${ME}/delete-selection`, { session_id: 'SESSION', frame_index: 0, points: [{ x: 0.5, y: -0.1 }] }),
  bad('point without y', `${ME}/delete-selection`, { session_id: 'SESSION', frame_index: 0, points: [{ x: 0.5 }] }),
  {
    name: 'unknown session',
    path: `${ME}/add-selection`,
    body: { session_id: 'sess_nope', frame_index: 0, points: [{ x: 0.5, y: 0.5 }] },
    status: 404,
    code: 1203,
  },
  bad('clear-selection without session_id', `${ME}/clear-selection`, {}),
  bad('preview-selection without session_id', `${ME}/preview-selection`, {}),

  // edit task (model only vidx-v1-6; image_list sizes)
  bad('edit model other than vidx-v1-6', ME, edit({ model_name: 'vidx-v1' }), 'vidx-v1-6'),
  bad('edit without session_id', ME, edit({ session_id: undefined })),
  bad('edit without edit_mode', ME, edit({ edit_mode: undefined })),
  bad('edit_mode outside the three', ME, edit({ edit_mode: 'replace' })),
  bad('addition with no image', ME, edit({ edit_mode: 'addition' }), 'image_list'),
  bad(
    'addition with 3 images',
    ME,
    edit({ edit_mode: 'addition', image_list: [{ image: 'a' }, { image: 'b' }, { image: 'c' }] }),
  ),
  bad('swap with 2 images', ME, edit({ edit_mode: 'swap', image_list: [{ image: 'a' }, { image: 'b' }] })),
  bad('swap with none', ME, edit({ edit_mode: 'swap' })),
  bad('removal with an image', ME, edit({ image_list: [{ image: 'a' }] })),
  bad('image_list item without image', ME, edit({ edit_mode: 'swap', image_list: [{ url: 'a' }] })),
  bad('edit without prompt', ME, edit({ prompt: undefined })),
  bad('edit duration "7"', ME, edit({ duration: '7' })),
  bad('edit duration as a number', ME, edit({ duration: 10 })),
  bad('edit mode other than std/pro', ME, edit({ mode: 'max' })),
  { name: 'edit with an unknown session', path: ME, body: edit({ session_id: 'sess_nope' }), status: 404, code: 1203 },
  good(
    'addition with 2 images',
    ME,
    edit({
      edit_mode: 'addition',
      image_list: [{ image: 'https://cdn.example.com/a.png' }, { image: 'https://cdn.example.com/b.png' }],
    }),
  ),
  good(
    'swap with exactly 1 image',
    ME,
    edit({ edit_mode: 'swap', image_list: [{ image: 'https://cdn.example.com/a.png' }] }),
  ),
  good('removal with none', ME, edit({ duration: '10', mode: 'pro' })),

  // omni-video
  good('omni-video with vidx-v3-omni', OMNI, p({ model_name: 'vidx-v3-omni', duration: '7' })),
  bad('omni-video with a text2video model', OMNI, p({ model_name: 'vidx-v1' })),
  bad('omni-video without prompt', OMNI, { model_name: 'vidx-v3-omni' }),
  bad('omni-video duration "20"', OMNI, p({ duration: '20' })),
  bad('omni-video o1 text-only duration "7"', OMNI, p({ model_name: 'vidx-video-o1', duration: '7' }), '"5", "10"'),
  good(
    'omni-video o1 with a reference image, duration "7"',
    OMNI,
    p({
      model_name: 'vidx-video-o1',
      duration: '7',
      aspect_ratio: '1:1',
      image_list: [{ image_url: 'https://cdn.example.com/r.png' }],
    }),
  ),
  bad(
    'omni-video o1 with negative_prompt',
    OMNI,
    p({ model_name: 'vidx-video-o1', negative_prompt: 'blur' }),
    'negative_prompt is not supported by vidx-video-o1',
  ),
  bad('omni-video with cfg_scale', OMNI, p({ cfg_scale: 0.5 }), 'cfg_scale is not supported by vidx-v3-omni'),

  // list page parameters
  bad('pageSize 0', `${T2V}?pageSize=0`, undefined),
  bad('pageSize above 500', `${T2V}?pageSize=501`, undefined),
  bad('pageNum above 1000', `${ME}?pageNum=1001`, undefined),
  bad('pageNum not an integer', `${OMNI}?pageNum=abc`, undefined),
  good('list defaults', T2V, undefined),
];

describe('family A validation table', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_n, c) => {
    const body =
      c.body === undefined
        ? undefined
        : JSON.parse(JSON.stringify(c.body).replaceAll('"SESSION"', JSON.stringify(sessionId)));
    const method = c.method ?? (body === undefined ? 'GET' : 'POST');
    const posts = () => t.h.sim.recorded.filter((x) => x.method === 'POST').length;
    // A task an earlier case created may still be submitted in the background (the slot queue): counted from a
    // quiet moment, so only this call's sends are counted.
    let before = posts();
    for (let quiet = 0; quiet < 3; ) {
      await new Promise((r) => setTimeout(r, 50));
      const now = posts();
      quiet = now === before ? quiet + 1 : 0;
      before = now;
    }
    const r = await call(t.h, c.as === 'narrow' ? narrow : t.token, method, c.path, body);
    expect({ status: r.status, code: r.body.code }).toEqual({ status: c.status, code: c.code });
    if (c.code === 0) {
      expect(r.body.message).toBe('success');
    } else {
      expect(r.body.data).toBeNull();
      expect(typeof r.body.message).toBe('string');
      expect(r.body.message.length).toBeGreaterThan(0);
      expect(Object.keys(r.body).sort()).toEqual(['code', 'data', 'message', 'request_id']);
      if (c.contains) expect(r.body.message).toContain(c.contains);
      // Refused by the gateway itself: nothing was sent upstream.
      expect(posts()).toBe(before);
    }
  });

  it('invalid JSON is 400 / 1200', async () => {
    const r = await t.h.fetch(T2V, {
      method: 'POST',
      token: t.token,
      body: '{"prompt":',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    const b = (await r.json()) as AErr;
    expect(b).toMatchObject({ code: 1200, data: null });
  });

  it('auth errors use the vendor auth codes', async () => {
    const none = await t.h.fetch(T2V, { method: 'POST', json: p({}) });
    expect(none.status).toBe(401);
    expect(((await none.json()) as { code: number }).code).toBe(1001);
    const wrong = await t.h.fetch(T2V, { method: 'POST', json: p({}), token: 'tw-not-a-token' });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { code: number }).code).toBe(1002);
  });

  it('the canonical name of a normalised model is what the upstream and the query show', async () => {
    const c = await call<TaskData>(t.h, t.token, 'POST', T2V, p({ model_name: 'vidx-v2-5' }));
    const sent = t.h.sim
      .requestsTo('/v1/videos/text2video')
      .filter((r) => r.method === 'POST')
      .map((r) => r.body as { external_task_id: string; model_name: string });
    expect(sent.find((b) => b.external_task_id === c.body.data.task_id)?.model_name).toBe('kling-v2-5-turbo');
    const q = await waitStatus(t.h, t.token, `${T2V}/${c.body.data.task_id}`, 'succeed');
    expect(q.model_name).toBe('vidx-v2-5-turbo');
    // Public stand-in names never reach the upstream.
    expect(JSON.stringify(t.h.sim.requestsTo('/v1/videos').map((r) => r.body))).not.toMatch(/"model_name":"vidx/);
  });
});
