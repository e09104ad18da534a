// Per-token rate limits through the real server, on every front and family: the x-ratelimit-* headers on every
// answer of a token with limits (the official openai SDK reads them), none for a token without, and a refusal as
// 429 rate_limit_exceeded in the family's shape with the request id and Retry-After.
import Anthropic from '@anthropic-ai/sdk';
import { RateLimitError } from 'openai';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { expectA, expectB } from '../support/error-shapes.ts';
import { anthropicClient, openaiClient } from '../support/sdk.ts';
import { MemoryCounters, RateLimiter } from '../../src/limits/rate-limiter.ts';

const t = useHarness();

async function limitedToken(limits: { rpm_limit?: number; tpm_limit?: number }): Promise<string> {
  const r = await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'limited', ...limits } });
  expect(r.status).toBe(201);
  return ((await r.json()) as { token: string }).token;
}

const RESET = /^(\d+ms|\d+s|\d+m\d+s)$/;
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const chatBody = (text: string) => ({ model: 'qwx3.7-plus', messages: [{ role: 'user' as const, content: text }] });

describe('rate limits through the server', () => {
  it('chat with the openai SDK: the requests and tokens trios on each answer (also a stream), then RateLimitError with Retry-After', async () => {
    const token = await limitedToken({ rpm_limit: 3, tpm_limit: 1_000_000 });
    const client = openaiClient(t.h, token);
    const { response } = await client.chat.completions.create(chatBody('first')).withResponse();
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('3');
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('2');
    expect(response.headers.get('x-ratelimit-reset-requests')).toMatch(RESET);
    expect(response.headers.get('x-ratelimit-limit-tokens')).toBe('1000000');
    expect(response.headers.get('x-ratelimit-reset-tokens')).toMatch(RESET);

    const streamed = await client.chat.completions.create({ ...chatBody('second'), stream: true }).withResponse();
    for await (const _ of streamed.data) void _;
    expect(streamed.response.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    // The first call's metered tokens were counted once it settled.
    expect(Number(streamed.response.headers.get('x-ratelimit-remaining-tokens'))).toBeLessThan(1_000_000);

    await client.chat.completions.create(chatBody('third'));
    const e = await client.chat.completions.create(chatBody('fourth')).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(RateLimitError);
    const err = e as RateLimitError;
    expect([err.status, err.code, err.type]).toEqual([429, 'rate_limit_exceeded', 'rate_limit_error']);
    expect(Number(err.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(err.headers?.get('x-ratelimit-remaining-requests')).toBe('0');
    expect((err.error as { request_id?: string }).request_id).toBe(err.headers?.get('x-gateway-request-id'));
  });

  it('tokens per minute: the first call is admitted, its tokens fill the window, the next is refused until it resets', async () => {
    const token = await limitedToken({ tpm_limit: 5 });
    const first = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token,
      json: chatBody('a call of more than five tokens in all'),
    });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining-tokens')).toBe('5');
    expect(first.headers.get('x-ratelimit-limit-requests')).toBeNull();
    const used = (await first.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    expect(used.usage.prompt_tokens + used.usage.completion_tokens).toBeGreaterThan(5);

    const refused = await t.h.fetch('/v1/chat/completions', { method: 'POST', token, json: chatBody('again') });
    expect(refused.headers.get('x-ratelimit-remaining-tokens')).toBe('0');
    const retry = Number(refused.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    const body = await expectB(refused, 429, 'rate_limit_exceeded');
    expect(body.error.message).toContain('5 tokens per minute');
  });

  it("/v1/messages with the Anthropic SDK: Anthropic's headers on the answer (also a stream), then its RateLimitError with Retry-After and the request id", async () => {
    const token = await limitedToken({ rpm_limit: 2, tpm_limit: 1_000_000 });
    const client = anthropicClient(t.h, token);
    const body = { model: 'qwx3.7-plus', max_tokens: 50, messages: [{ role: 'user' as const, content: 'hi' }] };
    const before = Date.now();
    const { response } = await client.messages.create(body).withResponse();
    expect(response.headers.get('anthropic-ratelimit-requests-limit')).toBe('2');
    expect(response.headers.get('anthropic-ratelimit-requests-remaining')).toBe('1');
    expect(response.headers.get('anthropic-ratelimit-tokens-limit')).toBe('1000000');
    expect(response.headers.get('anthropic-ratelimit-tokens-remaining')).toBe('1000000');
    for (const kind of ['requests', 'tokens']) {
      const reset = response.headers.get(`anthropic-ratelimit-${kind}-reset`)!;
      expect(reset).toMatch(RFC3339);
      expect(Date.parse(reset)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
      expect(Date.parse(reset)).toBeLessThanOrEqual(Date.now() + 61_000);
    }
    // OpenAI's names are not sent on the messages API.
    expect([...response.headers.keys()].filter((k) => k.startsWith('x-ratelimit'))).toEqual([]);
    const streamed = await client.messages.stream(body).withResponse();
    for await (const _ of streamed.data) void _;
    expect(streamed.response.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    // The first call's metered tokens were counted once it settled.
    expect(Number(streamed.response.headers.get('anthropic-ratelimit-tokens-remaining'))).toBeLessThan(1_000_000);
    const e = await client.messages.create(body).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(Anthropic.RateLimitError);
    const err = e as InstanceType<typeof Anthropic.RateLimitError>;
    expect(err.status).toBe(429);
    expect(Number(err.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(err.headers?.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect(err.headers?.get('anthropic-ratelimit-requests-reset')).toMatch(RFC3339);
    const rid = err.headers?.get('x-gateway-request-id');
    expect((err.error as { error: { type: string } }).error.type).toBe('rate_limit_error');
    expect(JSON.stringify(err.error)).toContain(String(rid));
  });

  it('Fastify routes of both families: headers on every answer (an error too), 429 in the family B shape and the family A envelope', async () => {
    const token = await limitedToken({ rpm_limit: 2 });
    const bad = await t.h.fetch('/vidx/v1/videos/text2video', { method: 'POST', token, json: {} });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    const models = await t.h.fetch('/v1/models', { token });
    expect(models.status).toBe(200);
    expect(models.headers.get('x-ratelimit-remaining-requests')).toBe('0');

    const b = await t.h.fetch('/v1/models', { token });
    expect(b.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(b.headers.get('x-ratelimit-reset-requests')).toMatch(RESET);
    await expectB(b, 429, 'rate_limit_exceeded');
    const a = await t.h.fetch('/vidx/v1/videos/text2video', { method: 'POST', token, json: { prompt: 'x' } });
    expect(a.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(a.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    await expectA(a, 429, 1302);
  });

  it("the messages token count (a Fastify route of the messages API): Anthropic's headers, and its 429 in the messages shape", async () => {
    const token = await limitedToken({ rpm_limit: 1, tpm_limit: 500 });
    const client = anthropicClient(t.h, token);
    const body = { model: 'qwx3.7-plus', messages: [{ role: 'user' as const, content: 'hi' }] };
    const { response } = await client.messages.countTokens(body).withResponse();
    expect(response.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect(response.headers.get('anthropic-ratelimit-tokens-limit')).toBe('500');
    expect(response.headers.get('x-ratelimit-limit-requests')).toBeNull();
    const refused = await t.h.fetch('/v1/messages/count_tokens', { method: 'POST', token, json: body });
    expect(refused.headers.get('anthropic-ratelimit-requests-reset')).toMatch(RFC3339);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    await expectB(refused, 429, 'rate_limit_exceeded');
  });

  it("without Redis: told N seconds, refused just before, admitted after N seconds (the gateway's clock moved, not waited)", async () => {
    const deps = t.h.gw.deps;
    const real = deps.limiter;
    // Mid-minute: a window that opens here must not reset at the next whole minute.
    let now = 1_700_000_030_000;
    deps.limiter = new RateLimiter(new MemoryCounters(() => now));
    try {
      const token = await limitedToken({ rpm_limit: 1 });
      expect((await t.h.fetch('/v1/models', { token })).status).toBe(200);
      now += 40_000;
      const refused = await t.h.fetch('/v1/models', { token });
      expect(refused.status).toBe(429);
      const n = Number(refused.headers.get('retry-after'));
      expect(n).toBe(20);
      expect(refused.headers.get('x-ratelimit-reset-requests')).toBe('20s');
      now += (n - 1) * 1000;
      expect((await t.h.fetch('/v1/models', { token })).status).toBe(429);
      now += 1000;
      expect((await t.h.fetch('/v1/models', { token })).status).toBe(200);
    } finally {
      deps.limiter = real;
    }
  });

  it('a token without limits gets no rate-limit headers in either convention', async () => {
    const chat = await t.h.fetch('/v1/chat/completions', { method: 'POST', token: t.token, json: chatBody('free') });
    const models = await t.h.fetch('/v1/models', { token: t.token });
    const messages = await t.h.fetch('/v1/messages', {
      method: 'POST',
      token: t.token,
      json: { ...chatBody('free'), max_tokens: 10 },
    });
    for (const r of [chat, models, messages]) {
      expect(r.status).toBe(200);
      expect([...r.headers.keys()].filter((k) => k.includes('ratelimit'))).toEqual([]);
    }
  });
});
