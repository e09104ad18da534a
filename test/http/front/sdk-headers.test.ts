// The request id under every name a client reads — X-Gateway-Request-Id, x-request-id (the openai SDK's
// `_request_id` / `err.requestID`) and request-id (the Anthropic SDK's) — on every answer of every family and
// both fronts; and an exhausted quota's 429 carries `x-should-retry: false`, so the SDKs with their default
// retries send the request once (counted in the request log), while an upstream 429 is still retried.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { RID } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';
import { anthropicClient, openaiClient } from '../../support/sdk.ts';
import { flushWriters } from '../../support/store-rows.ts';

const t = useHarness();
const MODEL = 'qwx3.7-plus';

/**
 * What the SDKs put on a result (`_request_id`, from x-request-id / request-id), beside withResponse()'s `request_id`.
 */
type Sent = { data: unknown; response: Response; request_id: string | null | undefined };
function sdkSaw(r: Sent): void {
  const id = idOf(r.response.headers);
  expect(r.request_id).toBe(id);
  expect((r.data as { _request_id?: string })._request_id).toBe(id);
}

/** All three headers carry one request id; returns it. */
function idOf(headers: Headers): string {
  const id = headers.get('x-gateway-request-id');
  expect(id).toMatch(RID);
  expect(headers.get('x-request-id')).toBe(id);
  expect(headers.get('request-id')).toBe(id);
  return id!;
}

describe('request id headers, read by the official SDKs', () => {
  it('openai: chat and embeddings (text lane), a chat stream, a model (Fastify), and an error', async () => {
    const client = openaiClient(t.h, t.token);
    sdkSaw(
      await client.chat.completions
        .create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse(),
    );
    sdkSaw(await client.embeddings.create({ model: 'text-embedding-v4', input: 'hi' }).withResponse());
    const stream = await client.chat.completions
      .create({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    idOf(stream.response.headers);
    for await (const _ of stream.data) void _;
    sdkSaw(await client.models.retrieve(MODEL).withResponse());
    const err = await client.models.retrieve('no-such-model').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.APIError>).requestID).toBe(
      idOf((err as InstanceType<typeof OpenAI.APIError>).headers!),
    );
  });

  it('anthropic: a message and a message stream (text lane), a token count (Fastify)', async () => {
    const client = anthropicClient(t.h, t.token);
    sdkSaw(
      await client.messages
        .create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse(),
    );
    const stream = await client.messages
      .create({ model: MODEL, max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    idOf(stream.response.headers);
    for await (const _ of stream.data) void _;
    sdkSaw(
      await client.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }).withResponse(),
    );
  });

  it('plain HTTP: family A, admin, health, the OpenAPI document, a 404 — each its own id', async () => {
    const ids = new Set<string>();
    const answers = [
      await t.h.fetch('/vidx/v1/videos/text2video', { method: 'POST', token: t.token, json: { prompt: 'a cat' } }),
      await t.h.fetch('/vidx/v1/videos/text2video/nope', { token: t.token }),
      await t.h.admin('/admin/tokens'),
      await t.h.fetch('/healthz'),
      await t.h.fetch('/openapi.json'),
      await t.h.fetch('/nowhere'),
    ];
    for (const r of answers) ids.add(idOf(r.headers));
    expect(ids.size).toBe(answers.length);
  });
});

describe('an exhausted quota is not retried by the SDKs', () => {
  async function rowsOf(tokenId: string) {
    await flushWriters(t.h);
    return t.h.store.db
      .selectFrom('request_log')
      .select(['status', 'error_code'])
      .where('token_id', '=', tokenId)
      .execute();
  }

  it('openai with its default retries: one request, 429 insufficient_quota with x-should-retry: false', async () => {
    const tok = await t.h.token({ quota: 1 });
    const client = new OpenAI({ baseURL: `${t.h.url}/v1`, apiKey: tok.secret });
    expect(client.maxRetries).toBeGreaterThan(0);
    const err = (await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.code).toBe('insufficient_quota');
    expect(err.headers?.get('x-should-retry')).toBe('false');
    expect(await rowsOf(tok.id)).toEqual([{ status: 429, error_code: 'insufficient_quota' }]);
  });

  it('anthropic with its default retries: one request', async () => {
    const tok = await t.h.token({ quota: 1 });
    const client = new Anthropic({ baseURL: t.h.url, apiKey: tok.secret });
    const err = await client.messages
      .create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    expect(await rowsOf(tok.id)).toEqual([{ status: 429, error_code: 'insufficient_quota' }]);
  });

  it('an upstream rate limit (429 without the header) is retried as usual: the count above can see retries', async () => {
    const tok = await t.h.token();
    const client = new OpenAI({ baseURL: `${t.h.url}/v1`, apiKey: tok.secret, maxRetries: 1 });
    const err = (await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'sim-fault:status:429' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.headers?.get('x-should-retry')).toBeNull();
    expect((await rowsOf(tok.id)).length).toBe(2);
  });
});
