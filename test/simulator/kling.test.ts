import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { klingState } from '../../simulator/kling/index.ts';
import { KlingJwtSigner } from '../../src/adapters/kling/jwt.ts';
import { useSimulator } from '../support/simulator.ts';

const s = useSimulator({ taskDurationMs: 200 });
const signer = new KlingJwtSigner();
const jwt = () => signer.token(DEFAULT_SIM_KEYS.klingAccessKey, DEFAULT_SIM_KEYS.klingSecretKey);

interface Env {
  code: number;
  message: string;
  request_id: string;
  data?: Record<string, unknown> & { task_id?: string; task_status?: string; session_id?: string };
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; body: Env }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token ?? (await jwt())}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(s.sim.url + path, { method, headers, body: body === undefined ? null : JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Env };
}

async function until(path: string, status: string): Promise<Env> {
  for (let i = 0; i < 100; i++) {
    const r = await call('GET', path);
    if (r.body.data?.task_status === status) return r.body;
    await new Promise((res) => setTimeout(res, 30));
  }
  throw new Error(`never reached ${status}`);
}

describe('kling simulator: auth', () => {
  it('rejects a missing, forged or expired JWT with the vendor auth codes', async () => {
    const none = await fetch(`${s.sim.url}/v1/videos/text2video`, { method: 'POST', body: '{}' });
    expect(none.status).toBe(401);
    expect(((await none.json()) as Env).code).toBe(1001);
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(DEFAULT_SIM_KEYS.klingAccessKey)
      .setExpirationTime('30m')
      .sign(new TextEncoder().encode('wrong-secret'));
    expect((await call('POST', '/v1/videos/text2video', { prompt: 'x' }, forged)).body.code).toBe(1002);
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(DEFAULT_SIM_KEYS.klingAccessKey)
      .setExpirationTime(now - 10)
      .setNotBefore(now - 100)
      .sign(new TextEncoder().encode(DEFAULT_SIM_KEYS.klingSecretKey));
    const r = await call('POST', '/v1/videos/text2video', { prompt: 'x' }, expired);
    expect(r.status).toBe(401);
    expect(r.body.code).toBe(1004);
  });

  it('the signer caches and refreshes before expiry', async () => {
    let now = 1_800_000_000_000;
    const s = new KlingJwtSigner({ now: () => now, ttlSec: 1800, refreshMarginSec: 300 });
    const a = await s.token('ak', 'sk-secret');
    now += 1000 * 1000; // 1000 s later: 800 s left, still cached
    expect(await s.token('ak', 'sk-secret')).toBe(a);
    now += 600 * 1000; // 200 s left < margin: re-signed
    const b = await s.token('ak', 'sk-secret');
    expect(b).not.toBe(a);
    const payload = JSON.parse(Buffer.from(b.split('.')[1]!, 'base64url').toString()) as {
      iss: string;
      exp: number;
      nbf: number;
    };
    expect(payload.iss).toBe('ak');
    expect(payload.exp).toBe(Math.floor(now / 1000) + 1800);
    expect(payload.nbf).toBe(Math.floor(now / 1000) - 5);
    expect(await s.token('ak', 'other-secret')).not.toBe(b);
  });
});

describe('kling simulator: text2video', () => {
  it('creates, progresses to succeed, and is found by id, external id and list', async () => {
    const c = await call('POST', '/v1/videos/text2video', {
      model_name: 'kling-v2-6',
      prompt: 'a cat',
      duration: '10',
      mode: 'pro',
      sound: 'on',
      external_task_id: 'ext-1',
    });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({
      code: 0,
      message: 'SUCCEED',
      data: { task_status: 'submitted', task_info: { external_task_id: 'ext-1' } },
    });
    const id = c.body.data!.task_id!;
    const done = await until(`/v1/videos/text2video/${id}`, 'succeed');
    const videos = (done.data!.task_result as { videos: Array<{ id: string; url: string; duration: string }> }).videos;
    expect(videos).toHaveLength(1);
    expect(videos[0]!.duration).toBe('10.1');
    expect(videos[0]!.url).toMatch(/\.mp4$/);
    expect((await call('GET', '/v1/videos/text2video/ext-1')).body.data!.task_id).toBe(id);
    const list = await call('GET', '/v1/videos/text2video?pageNum=1&pageSize=500');
    expect((list.body.data as unknown as Array<{ task_id: string }>).map((t) => t.task_id)).toContain(id);
    expect((await call('GET', '/v1/videos/text2video?pageSize=501')).body.code).toBe(1201);
    expect(
      (await call('POST', '/v1/videos/text2video', { prompt: 'again', external_task_id: 'ext-1' })).body.code,
    ).toBe(1201);
  });

  it('applies the parameter rules with code 1201', async () => {
    const bad = [
      { prompt: 'x', model_name: 'vidx-v1' },
      { prompt: 'x'.repeat(2501) },
      {},
      { prompt: 'x', duration: 5 },
      { prompt: 'x', cfg_scale: 0.5, model_name: 'kling-v2-master' },
      { prompt: 'x', sound: 'on', model_name: 'kling-v1' },
      { prompt: 'x', camera_control: { type: 'simple', config: { horizontal: 1, zoom: 2 } } },
      { prompt: 'x', camera_control: { type: 'simple' } },
    ];
    for (const b of bad) {
      const r = await call('POST', '/v1/videos/text2video', b);
      expect(r.status, JSON.stringify(b)).toBe(400);
      expect(r.body.code).toBe(1201);
    }
  });

  it('task faults: fail-task ends failed, vanish is forgotten', async () => {
    const f = await call('POST', '/v1/videos/text2video', { prompt: 'x sim-fault:fail-task' });
    const failed = await until(`/v1/videos/text2video/${f.body.data!.task_id}`, 'failed');
    expect(failed.data!.task_status_msg).toBeTruthy();
    const v = await call('POST', '/v1/videos/text2video', { prompt: 'x sim-fault:vanish' });
    await new Promise((r) => setTimeout(r, 250));
    const gone = await call('GET', `/v1/videos/text2video/${v.body.data!.task_id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe(1203);
  });

  it('late-reply: the task exists at once, its creation answer comes later, and never to a client that left', async () => {
    const post = async (body: unknown, signal?: AbortSignal) => {
      const r = await fetch(`${s.sim.url}/v1/videos/text2video`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await jwt()}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        ...(signal ? { signal } : {}),
      });
      return (await r.json()) as Env;
    };
    const found = async (ext: string) => {
      for (let i = 0; i < 100; i++) {
        const q = await call('GET', `/v1/videos/text2video/${ext}`);
        if (q.status === 200) return q.body;
        await new Promise((res) => setTimeout(res, 10));
      }
      throw new Error(`${ext} never created`);
    };
    // A client that gives up (a gateway that dies) before the answer: the task is there all the same.
    const ac = new AbortController();
    let answered = false;
    const gone = post(
      { prompt: 'a lighthouse sim-fault:late-reply:60000', external_task_id: 'ext-late-1' },
      ac.signal,
    ).then(
      () => (answered = true),
      () => 'aborted',
    );
    const q = await found('ext-late-1');
    expect(answered).toBe(false);
    ac.abort();
    expect(await gone).toBe('aborted');
    expect(q.data?.task_info).toEqual({ external_task_id: 'ext-late-1' });
    expect((await until('/v1/videos/text2video/ext-late-1', 'succeed')).data?.task_id).toBe(q.data?.task_id);
    // A client that waits gets the ordinary creation answer, for the task already queryable.
    const waiting = post({ prompt: 'a harbour sim-fault:late-reply:200', external_task_id: 'ext-late-2' });
    const q2 = await found('ext-late-2');
    const created = await waiting;
    expect(created.code).toBe(0);
    expect(created.data?.task_id).toBe(q2.data?.task_id);
  });

  it('POSTs the task data to callback_url at the terminal state', async () => {
    const got: unknown[] = [];
    const srv: Server = createServer((req, res) => {
      let b = '';
      req.on('data', (c: Buffer) => (b += c.toString()));
      req.on('end', () => {
        got.push(JSON.parse(b));
        res.end('ok');
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as AddressInfo).port;
    const c = await call('POST', '/v1/videos/text2video', {
      prompt: 'cb',
      callback_url: `http://127.0.0.1:${port}/hook`,
    });
    const sent = () =>
      klingState(s.sim.ctx).callbacks.some(
        (x) => x.status === 200 && (x.body as { task_id?: string }).task_id === c.body.data!.task_id,
      );
    for (let i = 0; i < 100 && !sent(); i++) await new Promise((r) => setTimeout(r, 20));
    srv.close();
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ task_id: c.body.data!.task_id, task_status: 'succeed' });
    expect(sent()).toBe(true);
  });
});

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

describe('kling simulator: parallel tasks per account and model version (1303)', () => {
  const lim = useSimulator({ taskDurationMs: 300, klingTaskSlots: 2 });
  const post = async (body: unknown, path = '/v1/videos/text2video') => {
    const r = await fetch(lim.sim.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${await jwt()}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as Env };
  };
  const tasksNow = () => klingState(lim.sim.ctx).tasks.size;
  const ended = async (id: string, status: string) => {
    for (let i = 0; i < 100; i++) {
      const r = await fetch(`${lim.sim.url}/v1/videos/text2video/${id}`, {
        headers: { authorization: `Bearer ${await jwt()}` },
      });
      if (((await r.json()) as Env).data?.task_status === status) return;
      await new Promise((res) => setTimeout(res, 30));
    }
    throw new Error(`never reached ${status}`);
  };

  it('over the limit a creation gets 429 code 1303 and creates nothing; another model version has its own slots', async () => {
    expect((await post({ model_name: 'kling-v2-6', prompt: 'a' })).body.code).toBe(0);
    expect((await post({ model_name: 'kling-v2-6', prompt: 'b' })).body.code).toBe(0);
    const before = tasksNow();
    const over = await post({ model_name: 'kling-v2-6', prompt: 'c', external_task_id: 'over-1' });
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ code: 1303, message: 'parallel task over resource pack limit' });
    expect(tasksNow()).toBe(before);
    // Nothing was created: the refused external id is free.
    expect(klingState(lim.sim.ctx).byExternal.has('over-1')).toBe(false);
    expect((await post({ model_name: 'kling-v2-5-turbo', prompt: 'other version' })).body.code).toBe(0);
    expect(
      (await post({ model_name: 'kling-video-o1', prompt: 'omni', aspect_ratio: '16:9' }, '/v1/videos/omni-video')).body
        .code,
    ).toBe(0);
  });

  it('a slot is held until the task ends (a failure frees it too), then a creation is taken again', async () => {
    const first = await post({ model_name: 'kling-v2-1-master', prompt: 'x sim-fault:fail-task' });
    const second = await post({ model_name: 'kling-v2-1-master', prompt: 'y' });
    expect([first.body.code, second.body.code]).toEqual([0, 0]);
    expect((await post({ model_name: 'kling-v2-1-master', prompt: 'z' })).body.code).toBe(1303);
    await ended(first.body.data!.task_id!, 'failed');
    await ended(second.body.data!.task_id!, 'succeed');
    expect((await post({ model_name: 'kling-v2-1-master', prompt: 'now free' })).body.code).toBe(0);
    expect(klingState(lim.sim.ctx).slots.peak.get('kling-v2-1-master')).toBe(2);
  });

  it('the limit is set per test: by option, at run time through /__sim/kling/task-slots, and 0 lifts it', async () => {
    const set = async (slots: unknown) =>
      fetch(`${lim.sim.url}/__sim/kling/task-slots`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ slots }),
      });
    expect((await set(-1)).status).toBe(400);
    expect((await set(0)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await post({ model_name: 'kling-v3', prompt: `free ${i}` })).body.code).toBe(0);
    expect((await set(4)).status).toBe(200);
    expect((await post({ model_name: 'kling-v3', prompt: 'fifth' })).body.code).toBe(1303);
    lim.sim.ctx.opts.klingTaskSlots = 2;
  });
});

describe('kling simulator: the parallel-task limit is on by default', () => {
  const d = useSimulator({ taskDurationMs: 60_000 });
  it('refuses the creation past 5 open tasks of one model version (DEFAULT_KLING_TASK_SLOTS)', async () => {
    const post = async (prompt: string) => {
      const r = await fetch(`${d.sim.url}/v1/videos/text2video`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await jwt()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model_name: 'kling-v2-6', prompt }),
      });
      return ((await r.json()) as Env).code;
    };
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push(await post(`p${i}`));
    expect(codes).toEqual([0, 0, 0, 0, 0, 1303]);
  });
});
