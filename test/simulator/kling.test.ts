// The simulator's Kling API: JWT auth with the vendor's codes, and text2video's life (creation, progress, parameter
// rules, task faults, late replies, callbacks). Multi-elements and omni: kling-omni.test.ts; parallel-task slots:
// kling-task-slots.test.ts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { klingState } from '../../simulator/kling/index.ts';
import { KlingJwtSigner } from '../../src/adapters/kling/jwt.ts';
import { useSimulator } from '../support/simulator.ts';
import { klingCalls, klingJwt as jwt, type KlingEnvelope as Env } from '../support/kling-sim.ts';

const s = useSimulator({ taskDurationMs: 200 });
const { call, until } = klingCalls(s);

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
