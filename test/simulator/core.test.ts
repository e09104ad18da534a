// The simulator is how we know what the upstream does: credentials checked like the real one (its faults:
// faults.test.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { useSimulator } from '../support/simulator.ts';
import { chatBody, DS, jwt, now, simCalls } from '../support/sim-calls.ts';

const s = useSimulator({ taskDurationMs: 300 });
afterEach(() => s.sim.faults.clear());
const { post, chat, kling } = simCalls(s);

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
