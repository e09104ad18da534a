// The simulator is how we know what the upstream does: credentials checked like the real one,
// and each fault kind selectable per run and per request.
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { useSimulator } from '../support/simulator.ts';

const s = useSimulator({ taskDurationMs: 300 });
afterEach(() => s.sim.faults.clear());

const DS = DEFAULT_SIM_KEYS.dashscopeApiKey;
const chatBody = (content = 'hello', extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'qwen3.7-plus', messages: [{ role: 'user', content }], ...extra });

function post(path: string, body: string, key: string | null = DS, init: RequestInit = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  return fetch(s.sim.url + path, { method: 'POST', body, headers, ...init });
}
const chat = (content = 'hello', extra: Record<string, unknown> = {}, init: RequestInit = {}) =>
  post('/compatible-mode/v1/chat/completions', chatBody(content, extra), DS, init);

const secret = new TextEncoder().encode(DEFAULT_SIM_KEYS.klingSecretKey);
const now = () => Math.floor(Date.now() / 1000);
const jwt = (claims: { iss?: string; exp?: number; nbf?: number }, key: Uint8Array = secret) => {
  let j = new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' });
  if (claims.iss !== undefined) j = j.setIssuer(claims.iss);
  if (claims.exp !== undefined) j = j.setExpirationTime(claims.exp);
  if (claims.nbf !== undefined) j = j.setNotBefore(claims.nbf);
  return j.sign(key);
};
const kling = (token: string | null) =>
  fetch(`${s.sim.url}/v1/videos/text2video?pageNum=1&pageSize=10`, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });

describe('DashScope credentials', () => {
  const WRONG = 'sk-wrong-key-000000000000';

  it('compatible-mode chat with a wrong or missing key → the upstream 401 body', async () => {
    for (const key of [WRONG, null]) {
      const r = await post('/compatible-mode/v1/chat/completions', chatBody(), key);
      expect(r.status).toBe(401);
      const b = (await r.json()) as { error: Record<string, unknown>; request_id: string };
      expect(b.error).toEqual({
        message: 'Incorrect API key provided. ',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      });
      expect(b.request_id).toEqual(expect.any(String));
    }
  });

  it('compatible-mode embeddings and models with a wrong key → 401 invalid_api_key', async () => {
    const e = await post(
      '/compatible-mode/v1/embeddings',
      JSON.stringify({ model: 'text-embedding-v4', input: ['a'] }),
      WRONG,
    );
    expect(e.status).toBe(401);
    expect(((await e.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    const m = await fetch(`${s.sim.url}/compatible-mode/v1/models`, { headers: { authorization: `Bearer ${WRONG}` } });
    expect(m.status).toBe(401);
    expect(((await m.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  });

  it('native paths answer the native 401 body', async () => {
    const r = await fetch(`${s.sim.url}/api/v1/tasks/some-task`, { headers: { authorization: `Bearer ${WRONG}` } });
    expect(r.status).toBe(401);
    const b = (await r.json()) as Record<string, unknown>;
    expect(b).toMatchObject({ code: 'InvalidApiKey', message: 'Invalid API-key provided.' });
    expect(b.request_id).toEqual(expect.any(String));
  });

  it('the right key works: chat, embeddings, models', async () => {
    const c = await chat('hi there');
    expect(c.status).toBe(200);
    const cb = (await c.json()) as {
      object: string;
      choices: Array<{ message: { content: string } }>;
      usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    };
    expect(cb.object).toBe('chat.completion');
    expect(cb.choices[0]!.message.content.length).toBeGreaterThan(0);
    expect(cb.usage.total_tokens).toBe(cb.usage.prompt_tokens + cb.usage.completion_tokens);

    const e = await post(
      '/compatible-mode/v1/embeddings',
      JSON.stringify({ model: 'text-embedding-v4', input: ['a', 'b'], dimensions: 64 }),
    );
    expect(e.status).toBe(200);
    const eb = (await e.json()) as {
      data: Array<{ index: number; embedding: number[] }>;
      usage: { prompt_tokens: number };
    };
    expect(eb.data.map((d) => d.index)).toEqual([0, 1]);
    expect(eb.data[0]!.embedding).toHaveLength(64);

    const m = await fetch(`${s.sim.url}/compatible-mode/v1/models`, { headers: { authorization: `Bearer ${DS}` } });
    expect(m.status).toBe(200);
    const mb = (await m.json()) as { object: string; data: Array<{ id: string; object: string }> };
    expect(mb.object).toBe('list');
    expect(mb.data.map((x) => x.id)).toContain('qwen3.7-plus');
    expect(mb.data.every((x) => !/^(qwx|wnx|hhx|vidx)/.test(x.id))).toBe(true);
    const one = await fetch(`${s.sim.url}/compatible-mode/v1/models/qwx3.7-plus`, {
      headers: { authorization: `Bearer ${DS}` },
    });
    expect(one.status).toBe(404);
  });
});

describe('Kling JWT auth', () => {
  it('missing → 1001', async () => {
    const r = await kling(null);
    expect(r.status).toBe(401);
    expect(((await r.json()) as { code: number }).code).toBe(1001);
  });

  it('garbage, wrong signature or wrong issuer → 1002', async () => {
    for (const t of [
      'not-a-jwt',
      await jwt(
        { iss: DEFAULT_SIM_KEYS.klingAccessKey, exp: now() + 600, nbf: now() - 5 },
        new TextEncoder().encode('another-secret'),
      ),
      await jwt({ iss: 'someone-else', exp: now() + 600, nbf: now() - 5 }),
    ]) {
      const r = await kling(t);
      expect(r.status).toBe(401);
      const b = (await r.json()) as { code: number; message: string; request_id: string };
      expect(b.code).toBe(1002);
      expect(b.request_id).toEqual(expect.any(String));
    }
  });

  it('expired → 1004', async () => {
    const r = await kling(await jwt({ iss: DEFAULT_SIM_KEYS.klingAccessKey, exp: now() - 60, nbf: now() - 120 }));
    expect(r.status).toBe(401);
    expect(((await r.json()) as { code: number }).code).toBe(1004);
  });

  it('nbf in the future → 1003', async () => {
    const r = await kling(await jwt({ iss: DEFAULT_SIM_KEYS.klingAccessKey, exp: now() + 1800, nbf: now() + 600 }));
    expect(r.status).toBe(401);
    expect(((await r.json()) as { code: number }).code).toBe(1003);
  });

  it('a valid token (iss = access key, exp, nbf) passes', async () => {
    const r = await kling(await jwt({ iss: DEFAULT_SIM_KEYS.klingAccessKey, exp: now() + 1800, nbf: now() - 5 }));
    expect(r.status).toBe(200);
    expect(((await r.json()) as { code: number }).code).toBe(0);
  });
});

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
