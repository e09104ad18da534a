// Per-token concurrency limit through the real server: while a token's only slot is taken by
// an in-flight call, a second call is refused with 429 concurrency_limited and Retry-After, in the family's
// shape; once the call ends (also a stream) the slot is free again.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import type { AErr, BErr } from '../support/error-shapes.ts';

const t = useHarness();

async function limitedToken(): Promise<string> {
  const r = await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'conc', concurrency_limit: 1 } });
  expect(r.status).toBe(201);
  return ((await r.json()) as { token: string }).token;
}

const chat = (token: string, text: string, stream = false) =>
  t.h.fetch('/v1/chat/completions', { method: 'POST', token, json: { model: 'qwx3.7-plus', stream, messages: [{ role: 'user', content: text }] } });

/** Wait until the simulator has received a call whose body contains `marker` (the slow call is in flight). */
async function upstreamHas(marker: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (t.h.sim.requestsTo('chat/completions').some((r) => JSON.stringify(r.body).includes(marker))) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`the upstream never saw ${marker}`);
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
});
