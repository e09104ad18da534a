// Per-token concurrency limit through the real server: while a token's only slot is taken by
// an in-flight call, a second call is refused with 429 concurrency_limited and Retry-After, in the family's
// shape; once the call ends (also a stream) the slot is free again. A call its client left holds its slot until it
// ends upstream, and a client gone before its admission finished, or in the middle of its body, frees its slot.
import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { useHarness } from '../support/harness.ts';
import type { AErr, BErr } from '../support/error-shapes.ts';

const t = useHarness();

async function limitedToken(): Promise<string> {
  const r = await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'conc', concurrency_limit: 1 } });
  expect(r.status).toBe(201);
  return ((await r.json()) as { token: string }).token;
}

const chat = (token: string, text: string, stream = false) =>
  t.h.fetch('/v1/chat/completions', {
    method: 'POST',
    token,
    json: { model: 'qwx3.7-plus', stream, messages: [{ role: 'user', content: text }] },
  });

/** Wait until the simulator has received a call whose body contains `marker` (the slow call is in flight). */
async function upstreamHas(marker: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (t.h.sim.requestsTo('chat/completions').some((r) => JSON.stringify(r.body).includes(marker))) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`the upstream never saw ${marker}`);
}

/** Call until it is not refused for concurrency (`tries` times, `gapMs` apart); the last status. */
async function statusOnceFree(
  token: string,
  path: string,
  json: unknown,
  tries: number,
  gapMs: number,
): Promise<number> {
  let status = 429;
  for (let i = 0; i < tries && status === 429; i++) {
    await new Promise((r) => setTimeout(r, gapMs));
    const r = await t.h.fetch(path, { method: 'POST', token, json });
    status = r.status;
    await r.text();
  }
  return status;
}

describe('concurrency limit through the real server', () => {
  it('a second call while the only slot is busy → 429 concurrency_limited with Retry-After (both families); freed afterwards', async () => {
    const token = await limitedToken();
    const slow = chat(token, 'slow-one sim-fault:delay:800');
    await upstreamHas('slow-one');

    const b = await chat(token, 'second');
    expect(b.status).toBe(429);
    expect(b.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = (await b.json()) as BErr;
    expect(body.error.code).toBe('concurrency_limited');
    expect(body.error.request_id).toBe(b.headers.get('x-gateway-request-id'));

    const a = await t.h.fetch('/vidx/v1/videos/text2video', { method: 'POST', token, json: { prompt: 'x' } });
    expect(a.status).toBe(429);
    expect(a.headers.get('retry-after')).toMatch(/^\d+$/);
    const env = (await a.json()) as AErr;
    expect(env.code).toBe(1303);
    expect(env.request_id).toBe(a.headers.get('x-gateway-request-id'));
    expect(env.data).toBeNull();

    expect((await slow).status).toBe(200);
    // The slot was released when the slow call ended.
    expect((await chat(token, 'after')).status).toBe(200);
  });

  it('a stream holds its slot until it ends, then releases it', async () => {
    const token = await limitedToken();
    const stream = chat(token, 'streaming-one sim-fault:trickle:100', true);
    const res = await stream;
    expect(res.status).toBe(200);
    // Headers are out, the body is still trickling: the slot is still taken.
    const during = await chat(token, 'during');
    expect(during.status).toBe(429);
    expect(((await during.json()) as BErr).error.code).toBe('concurrency_limited');
    const text = await res.text();
    expect(text).toContain('[DONE]');
    let after = await chat(token, 'after-stream');
    // 'close' on the response fires right after the last byte; allow the event loop a moment.
    for (let i = 0; i < 20 && after.status === 429; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = await chat(token, 'after-stream');
    }
    expect(after.status).toBe(200);
  });

  // The same rule on both fronts: the text lane (chat) and a Fastify route (image generation).
  for (const [front, path, body] of [
    [
      'the text lane',
      '/v1/chat/completions',
      (text: string) => ({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: text }] }),
    ],
    ['a framework route', '/v1/images/generations', (text: string) => ({ model: 'qwx-image-2.0', prompt: text })],
  ] as const) {
    it(`${front}: a call its client left keeps its slot until it ends upstream`, async () => {
      const token = await limitedToken();
      const marker = `left-${front.length}-${Date.now()}`;
      const ac = new AbortController();
      const first = t.h
        .fetch(path, { method: 'POST', token, signal: ac.signal, json: body(`${marker} sim-fault:delay:1200`) })
        .then(
          (r) => r.status,
          () => 'aborted',
        );
      const upstreamPath = path.includes('images') ? 'multimodal-generation' : 'chat/completions';
      for (
        let i = 0;
        i < 200 && !t.h.sim.requestsTo(upstreamPath).some((r) => JSON.stringify(r.body).includes(marker));
        i++
      )
        await new Promise((r) => setTimeout(r, 10));
      ac.abort();
      expect(await first).toBe('aborted');
      await new Promise((r) => setTimeout(r, 100));
      // The client is gone, the call is still running upstream: it is still in flight.
      const during = await t.h.fetch(path, { method: 'POST', token, json: body('during') });
      expect(during.status).toBe(429);
      expect(await during.text()).toContain('concurrency_limited');
      // Once it ended upstream, the slot is free.
      expect(await statusOnceFree(token, path, body('after'), 100, 50)).toBe(200);
    });

    it(`${front}: a client gone in the middle of its body frees its slot`, async () => {
      const token = await limitedToken();
      const { port } = new URL(t.h.url);
      const sock = connect(Number(port), '127.0.0.1');
      await new Promise<void>((r) => sock.once('connect', () => r()));
      sock.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"model":`,
      );
      await new Promise((r) => setTimeout(r, 150));
      sock.destroy();
      expect(await statusOnceFree(token, path, body('next'), 40, 25)).toBe(200);
    });
  }

  for (const [front, path, body] of [
    ['the text lane', '/v1/chat/completions', { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'x' }] }],
    ['a framework route', '/v1/images/generations', { model: 'qwx-image-2.0', prompt: 'x' }],
  ] as const) {
    it(`${front}: a client that sent its whole body and left while its admission was under way frees the slot it was then given`, async () => {
      const token = await limitedToken();
      const limiter = t.h.gw.deps.limiter;
      const admitNow = limiter.admit.bind(limiter);
      const slow = vi.spyOn(limiter, 'admit').mockImplementation(async (p) => {
        await new Promise((r) => setTimeout(r, 200));
        return admitNow(p);
      });
      try {
        const { port } = new URL(t.h.url);
        const sock = connect(Number(port), '127.0.0.1');
        await new Promise<void>((r) => sock.once('connect', () => r()));
        const json = JSON.stringify(body);
        sock.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
        );
        await new Promise((r) => setTimeout(r, 50));
        sock.destroy();
        await new Promise((r) => setTimeout(r, 400));
        expect(slow).toHaveBeenCalledTimes(1);
      } finally {
        slow.mockRestore();
      }
      expect(await statusOnceFree(token, path, body, 40, 50)).toBe(200);
    });
  }
});
