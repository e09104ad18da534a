// The simulated account's synchronous rate limits (upstream-protocols.md §1 "Synchronous rate limits"): requests and
// tokens per minute per account and model, the same per second, each refusal in DashScope's words; the quota list
// with the values enforced; Kling's creations per minute (1302). Time is the simulator's injected clock.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { rateLimitStats } from '../../simulator/rate-limits.ts';
import { KlingJwtSigner } from '../../src/adapters/kling/jwt.ts';
import { useSimulator } from '../support/simulator.ts';

const OTHER_ACCOUNT_KEY = 'sk-sim-other-account-key-000000000';
const SAME_ACCOUNT_KEY = 'sk-sim-main-account-second-key-000';
let clock = Date.parse('2026-12-02T00:00:00Z');
const s = useSimulator({
  now: () => clock,
  dashscopeRpm: 120,
  dashscopeTpm: 1_000_000,
  dashscopeModelLimits: {
    'tpm-model': { rpm: 0, tpm: 1000 },
    'tps-model': { rpm: 0, tpm: 60_000 },
    'burst-model': { rpm: 300 },
  },
  dashscopeKeys: { [OTHER_ACCOUNT_KEY]: 'other', [SAME_ACCOUNT_KEY]: 'main' },
  klingRpm: 2,
});
const tick = (ms: number) => {
  clock += ms;
};

const CHAT = '/compatible-mode/v1/chat/completions';
const chat = (model: string, opts: { key?: string; text?: string; stream?: boolean; padding?: number } = {}) =>
  fetch(s.sim.url + CHAT, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${opts.key ?? DEFAULT_SIM_KEYS.dashscopeApiKey}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: opts.text ?? 'hello' }],
      ...(opts.stream ? { stream: true } : {}),
      // Bytes of the body that are no tokens of the call: its estimate at admission is well above its usage.
      ...(opts.padding ? { user: 'z'.repeat(opts.padding) } : {}),
    }),
  });

describe('simulated DashScope synchronous rate limits', () => {
  it('requests per minute: 120 spread over the minute pass, the next is refused (Throttling.RateQuota words), then the window slides', async () => {
    for (let i = 0; i < 120; i++) {
      expect((await chat('rpm-model')).status, `call ${i}`).toBe(200);
      tick(500);
    }
    tick(-100); // 59.9 s after the first
    const r = await chat('rpm-model');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBeNull();
    expect(await r.json()).toMatchObject({
      error: { code: 'limit_requests', type: 'limit_requests', message: 'You exceeded your current requests list.' },
      request_id: expect.any(String),
    });
    tick(1100); // the first second of calls has left the window
    expect((await chat('rpm-model')).status).toBe(200);
    expect(rateLimitStats(s.sim.ctx).get('main rpm-model')).toMatchObject({
      admitted: 121,
      refused: { requests: 1, tokens: 0, burst: 0 },
    });
  });

  it('requests per second (RPM/60): a burst inside the minute is refused by the burst protection, a second later it passes', async () => {
    tick(60_000);
    // 300 a minute: 5 a second.
    const burst = await Promise.all(Array.from({ length: 7 }, () => chat('burst-model')));
    expect(burst.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const refused = burst.find((r) => r.status === 429)!;
    expect(await refused.json()).toMatchObject({
      error: { code: 'limit_burst_rate', message: expect.stringMatching(/^Request rate increased too quickly/) },
    });
    tick(1000);
    expect((await chat('burst-model')).status).toBe(200);
  });

  it('tokens per minute: counted from the usage each call reports; refused once they reach the limit (Throttling.AllocationQuota words)', async () => {
    tick(60_000);
    let used = 0;
    for (let i = 0; i < 40; i++) {
      tick(1100); // never two calls in one second: only the minute's total can refuse
      const r = await chat('tpm-model', { text: 'tell me about the sea '.repeat(10), padding: 8000 });
      if (used >= 1000) {
        expect(r.status).toBe(429);
        expect(await r.json()).toMatchObject({
          error: {
            code: 'insufficient_quota',
            type: 'insufficient_quota',
            message: expect.stringMatching(/^You exceeded your current quota/),
          },
        });
        return;
      }
      expect(r.status, `after ${used} tokens`).toBe(200);
      used += ((await r.json()) as { usage: { total_tokens: number } }).usage.total_tokens;
    }
    throw new Error('never refused');
  });

  it('tokens per second (TPM/60): a large call spends the second; the next in it is refused by the burst protection', async () => {
    tick(60_000);
    // 60,000 a minute: 1,000 a second; this call alone uses more.
    const big = await chat('tps-model', { text: 'x'.repeat(6000) });
    expect(big.status).toBe(200);
    expect(((await big.json()) as { usage: { total_tokens: number } }).usage.total_tokens).toBeGreaterThan(1000);
    expect((await chat('tps-model')).status).toBe(429);
    tick(1000);
    expect((await chat('tps-model')).status).toBe(200);
  });

  it("is kept per account (over all of its keys) and per model: another account's or model's calls are not refused", async () => {
    tick(60_000);
    s.sim.ctx.opts.dashscopeModelLimits['acct-model'] = { rpm: 60 }; // one a second
    expect((await chat('acct-model')).status).toBe(200);
    expect((await chat('acct-model', { key: SAME_ACCOUNT_KEY })).status).toBe(429);
    expect((await chat('acct-model', { key: OTHER_ACCOUNT_KEY })).status).toBe(200);
    expect((await chat('acct-model-2')).status).toBe(200);
  });

  it("refuses on every synchronous endpoint in that endpoint's own error shape, a stream before its first byte", async () => {
    tick(60_000);
    s.sim.ctx.opts.dashscopeModelLimits['shape-model'] = { rpm: 1 };
    const bearer = { authorization: `Bearer ${DEFAULT_SIM_KEYS.dashscopeApiKey}`, 'content-type': 'application/json' };
    const calls: Array<[path: string, headers: Record<string, string>, body: Record<string, unknown>, want: unknown]> =
      [
        [
          CHAT,
          bearer,
          { messages: [{ role: 'user', content: 'hi' }], stream: true },
          { error: { code: 'limit_requests' } },
        ],
        ['/compatible-mode/v1/embeddings', bearer, { input: 'hi' }, { error: { code: 'limit_requests' } }],
        [
          '/api/v2/apps/protocols/compatible-mode/v1/responses',
          bearer,
          { input: 'hi' },
          { error: { code: 'limit_requests' } },
        ],
        [
          '/apps/anthropic/v1/messages',
          { 'x-api-key': DEFAULT_SIM_KEYS.dashscopeApiKey, 'content-type': 'application/json' },
          { max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
          {
            type: 'error',
            error: { type: 'rate_limit_error', message: 'Requests rate limit exceeded, please try again later.' },
          },
        ],
        [
          '/api/v1/services/aigc/multimodal-generation/generation',
          bearer,
          { input: { messages: [{ role: 'user', content: [{ text: 'hi' }] }] } },
          { code: 'Throttling.RateQuota', message: 'Requests rate limit exceeded, please try again later.' },
        ],
      ];
    for (const [path, headers, body, want] of calls) {
      tick(60_000);
      const send = () =>
        fetch(s.sim.url + path, { method: 'POST', headers, body: JSON.stringify({ model: 'shape-model', ...body }) });
      const ok = await send();
      expect(ok.status, path).toBe(200);
      await ok.text();
      const r = await send();
      expect([r.status, r.headers.get('content-type')], path).toEqual([429, 'application/json']);
      expect(await r.json(), path).toMatchObject(want as object);
    }
  });

  it('a native call over the minute tokens and the burst answers Throttling.AllocationQuota and Throttling.BurstRate', async () => {
    tick(60_000);
    const native = (model: string) =>
      fetch(`${s.sim.url}/api/v1/services/aigc/multimodal-generation/generation`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEFAULT_SIM_KEYS.dashscopeApiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, input: { messages: [{ role: 'user', content: [{ text: 'y'.repeat(4000) }] }] } }),
      });
    s.sim.ctx.opts.dashscopeModelLimits['native-tpm'] = { rpm: 0, tpm: 500 };
    expect((await native('native-tpm')).status).toBe(200);
    tick(1000);
    expect(await (await native('native-tpm')).json()).toMatchObject({
      code: 'Throttling.AllocationQuota',
      message: 'Allocated quota exceeded, please increase your quota limit.',
    });
    s.sim.ctx.opts.dashscopeModelLimits['native-burst'] = { rpm: 60 };
    expect((await native('native-burst')).status).toBe(200);
    expect(await (await native('native-burst')).json()).toMatchObject({ code: 'Throttling.BurstRate' });
  });
});

describe('changing the limits while it runs (POST /__sim/rate-limits)', () => {
  const set = (body: unknown) =>
    fetch(`${s.sim.url}/__sim/rate-limits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('sets the defaults, a model and Kling; refuses a malformed body and changes nothing then', async () => {
    tick(60_000);
    expect((await set({ models: { 'live-model': { rpm: 1 } } })).status).toBe(200);
    expect((await chat('live-model')).status).toBe(200);
    expect((await chat('live-model')).status).toBe(429);
    expect((await set({ models: { 'live-model': { rpm: 0 } } })).status).toBe(200);
    expect((await chat('live-model')).status).toBe(200);
    expect((await set({ rpm: -1 })).status).toBe(400);
    expect((await set({ models: { x: { qps: 1 } } })).status).toBe(400);
    expect((await set({ rpm: 5, tpm: 10, kling_rpm: 3, models: 'no' })).status).toBe(400);
    expect(s.sim.ctx.opts).toMatchObject({ dashscopeRpm: 120, dashscopeTpm: 1_000_000, klingRpm: 2 });
    expect((await set({ rpm: 121, kling_rpm: 2 })).status).toBe(200);
    expect(s.sim.ctx.opts).toMatchObject({ dashscopeRpm: 121, klingRpm: 2 });
    expect((await set({ rpm: 120 })).status).toBe(200);
  });
});

describe('the quota list (GET /api/v1/quotas)', () => {
  const quotas = async (query = '', key = DEFAULT_SIM_KEYS.dashscopeApiKey) => {
    const r = await fetch(`${s.sim.url}/api/v1/quotas${query}`, { headers: { authorization: `Bearer ${key}` } });
    return {
      status: r.status,
      body: (await r.json()) as {
        output: { total: number; page_no: number; page_size: number; quotas: Array<Record<string, unknown>> };
      },
    };
  };

  it('reports the limits the simulator enforces, per model, for the model asked or a fuzzy name, a page at a time', async () => {
    const one = await quotas('?model=tpm-model');
    expect(one.status).toBe(200);
    expect(one.body.output).toMatchObject({ total: 1, page_no: 1, page_size: 20 });
    expect(one.body.output.quotas).toEqual([
      {
        model: 'tpm-model',
        workspace_id: 'ws-sim-main',
        model_limit: {
          request_limit: null,
          request_limit_period: 60,
          usage_limit: 1000,
          usage_limit_field: 'total_tokens',
          usage_limit_period: 60,
          async_user_queue_limit: null,
          async_user_concurrency_limit: null,
        },
        workspace_limit: null,
      },
    ]);
    const qwen = await quotas('?name=QWEN3.7');
    expect(
      qwen.body.output.quotas.map((q) => [q.model, (q.model_limit as { request_limit: number }).request_limit]),
    ).toEqual([['qwen3.7-plus', 120]]);
    const page = await quotas('?page_no=2&page_size=3');
    expect(page.body.output).toMatchObject({ page_no: 2, page_size: 3 });
    expect(page.body.output.quotas).toHaveLength(3);
    expect((await quotas('?page_size=101')).status).toBe(400);
    expect((await quotas('', 'sk-wrong')).status).toBe(401);
  });
});

describe('simulated Kling rate limit', () => {
  const signer = new KlingJwtSigner();
  const create = async (prompt: string) => {
    const r = await fetch(`${s.sim.url}/v1/videos/text2video`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await signer.token(DEFAULT_SIM_KEYS.klingAccessKey, DEFAULT_SIM_KEYS.klingSecretKey)}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ model_name: 'kling-v2-6', prompt, duration: '5' }),
    });
    return { status: r.status, body: (await r.json()) as { code: number; data?: { task_id: string } } };
  };

  it('creations per minute on the account: over it 429 code 1302 and nothing created; queries are not limited', async () => {
    tick(60_000);
    const a = await create('a fox');
    const b = await create('a hen');
    expect([a.status, b.status]).toEqual([200, 200]);
    const c = await create('a cow');
    expect([c.status, c.body.code, c.body.data]).toEqual([429, 1302, undefined]);
    const token = await signer.token(DEFAULT_SIM_KEYS.klingAccessKey, DEFAULT_SIM_KEYS.klingSecretKey);
    for (let i = 0; i < 5; i++) {
      const q = await fetch(`${s.sim.url}/v1/videos/text2video/${a.body.data!.task_id}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(q.status).toBe(200);
    }
    tick(60_000);
    expect((await create('a cow')).status).toBe(200);
  });
});
