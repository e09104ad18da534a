// The simulator's faults: each kind selectable per run and per request, answered in each wire's own shape.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { useSimulator } from '../support/simulator.ts';
import { DS, jwt, now, simCalls } from '../support/sim-calls.ts';

const s = useSimulator({ taskDurationMs: 300 });
afterEach(() => s.sim.faults.clear());
const { post, chat, kling } = simCalls(s);

describe('fault injection', () => {
  it("status, per request marker: the provider's own error body per wire", async () => {
    const c = await chat('please sim-fault:status:429');
    expect(c.status).toBe(429);
    expect(((await c.json()) as { error: { code: string } }).error.code).toBe('limit_requests');
    const c2 = await chat('sim-fault:status:403');
    expect(c2.status).toBe(403);
    expect(((await c2.json()) as { error: { message: string } }).error.message).toMatch(/Access denied/);
    // the next request without a marker is normal
    expect((await chat()).status).toBe(200);
  });

  it('content-filter: each API refuses in its own spelling', async () => {
    const compat = await chat('sim-fault:content-filter');
    expect(compat.status).toBe(400);
    expect(((await compat.json()) as { error: Record<string, unknown> }).error).toMatchObject({
      code: 'data_inspection_failed',
      type: 'data_inspection_failed',
    });
    const native = await post(
      '/api/v1/services/aigc/multimodal-generation/generation',
      JSON.stringify({
        model: 'qwen-image-2.0',
        input: { messages: [{ role: 'user', content: [{ text: 'sim-fault:content-filter' }] }] },
      }),
    );
    expect(native.status).toBe(400);
    expect(((await native.json()) as { code: string }).code).toBe('DataInspectionFailed');
    const messages = await fetch(`${s.sim.url}/apps/anthropic/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': DS, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'qwen3.7-plus',
        max_tokens: 8,
        messages: [{ role: 'user', content: 'sim-fault:content-filter' }],
      }),
    });
    expect(messages.status).toBe(400);
    const mb = (await messages.json()) as { type: string; error: { type: string; message: string } };
    expect([mb.type, mb.error.type]).toEqual(['error', 'invalid_request_error']);
    expect(mb.error.message).toContain('DataInspectionFailed');
    const token = await jwt({ iss: DEFAULT_SIM_KEYS.klingAccessKey, exp: now() + 1800, nbf: now() - 5 });
    for (const [arg, code] of [
      ['', 1301],
      [':1300', 1300],
    ] as const) {
      const k = await fetch(`${s.sim.url}/v1/videos/text2video`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model_name: 'kling-v1', prompt: `sim-fault:content-filter${arg}` }),
      });
      expect(k.status).toBe(400);
      expect(((await k.json()) as { code: number }).code).toBe(code);
    }
  });

  it('status, per run, limited by path and times', async () => {
    s.sim.faults.add({ kind: 'status', arg: 500, path: '/chat/completions', times: 2 });
    const emb = await post(
      '/compatible-mode/v1/embeddings',
      JSON.stringify({ model: 'text-embedding-v4', input: ['a'] }),
    );
    expect(emb.status).toBe(200);
    const a = await chat();
    const b = await chat();
    expect([a.status, b.status]).toEqual([500, 500]);
    expect(((await a.json()) as { error: { code: string } }).error.code).toBe('internal_error');
    expect((await chat()).status).toBe(200);
  });

  it('status on the Kling wire uses the Kling envelope', async () => {
    s.sim.faults.add({ kind: 'status', arg: 429, path: '/v1/videos', times: 1 });
    const r = await kling(await jwt({ iss: DEFAULT_SIM_KEYS.klingAccessKey, exp: now() + 1800, nbf: now() - 5 }));
    expect(r.status).toBe(429);
    expect(((await r.json()) as { code: number }).code).toBe(1302);
  });

  it('run-wide faults can be set and cleared over HTTP (/__sim/faults)', async () => {
    expect(
      (
        await fetch(`${s.sim.url}/__sim/faults`, {
          method: 'POST',
          body: JSON.stringify({ kind: 'status', arg: 503 }),
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(200);
    expect((await chat()).status).toBe(503);
    expect((await chat()).status).toBe(503);
    expect((await fetch(`${s.sim.url}/__sim/faults`, { method: 'DELETE' })).status).toBe(200);
    expect((await chat()).status).toBe(200);
  });

  it('delay answers normally, after at least the delay', async () => {
    const t0 = Date.now();
    const r = await chat('sim-fault:delay:150');
    expect(r.status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('reset drops the connection without an answer', async () => {
    await expect(chat('sim-fault:reset')).rejects.toThrow();
    s.sim.faults.add({ kind: 'reset', times: 1 });
    await expect(chat()).rejects.toThrow();
    expect((await chat()).status).toBe(200);
  });

  it('timeout never answers: the client gives up', async () => {
    const ac = new AbortController();
    const pending = chat('sim-fault:timeout', {}, { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    await expect(pending).rejects.toThrow(/abort/i);
    expect((await chat()).status).toBe(200);
  });

  it('malformed answers 200 with a body that is not JSON', async () => {
    const r = await chat('sim-fault:malformed');
    expect(r.status).toBe(200);
    const text = await r.text();
    expect(() => JSON.parse(text)).toThrow();
  });

  it("empty answers 200 in each API's success shape with no result and no usage", async () => {
    const chatR = (await (await chat('sim-fault:empty')).json()) as Record<string, unknown>;
    expect(chatR).toMatchObject({ object: 'chat.completion', choices: [] });
    expect(chatR.usage).toBeUndefined();
    const emb = (await (
      await post(
        '/compatible-mode/v1/embeddings',
        JSON.stringify({ model: 'text-embedding-v4', input: ['sim-fault:empty'] }),
      )
    ).json()) as Record<string, unknown>;
    expect(emb).toEqual({ object: 'list', data: [] });
    const resp = (await (
      await post(
        '/api/v2/apps/protocols/compatible-mode/v1/responses',
        JSON.stringify({ model: 'qwen3.7-plus', input: 'sim-fault:empty' }),
      )
    ).json()) as Record<string, unknown>;
    expect(resp).toMatchObject({ object: 'response', output: [] });
    expect(resp.usage).toBeUndefined();
  });

  it('cut sends some stream events then drops the connection (no [DONE])', async () => {
    const full = await (await chat('tell me', { stream: true })).text();
    expect(full).toContain('data: [DONE]');
    let text = '';
    let failed = false;
    try {
      const r = await chat('tell me sim-fault:cut', { stream: true });
      expect(r.status).toBe(200);
      const reader = r.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
    } catch {
      failed = true;
    }
    expect(failed).toBe(true);
    expect(text).not.toContain('[DONE]');
  });

  it('the simulator records what it received', async () => {
    await chat('recorded please');
    const last = s.sim.requestsTo('/chat/completions').at(-1)!;
    expect(last.method).toBe('POST');
    expect(JSON.stringify(last.body)).toContain('recorded please');
  });
});
