// /v1/messages (text lane) and /v1/messages/count_tokens (Fastify) answer errors in the messages API's shape —
// `{type:"error", error:{type, message, code, request_id, …}, request_id}` — on every path: authentication,
// validation, unknown model, quota, body size, upstream refusals. Checked with the official @anthropic-ai/sdk: the
// error class it raises is the one its status means, and `err.requestID` (read from `request-id`) is the request id.
import Anthropic from '@anthropic-ai/sdk';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { anthropicClient } from '../../support/sdk.ts';
import { expectB, MESSAGES_ERROR_TYPE, RID } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';

const t = useHarness({ env: { TOLLWAY_BODY_LIMIT: '65536' } });
const MODEL = 'qwx3.7-plus';
const body = (content: string, extra: Record<string, unknown> = {}) => ({
  model: MODEL,
  max_tokens: 16,
  messages: [{ role: 'user' as const, content }],
  ...extra,
});

/** An SDK error class (APIError or one of its status classes). */
type ErrorClass = abstract new (...args: never[]) => Error;

type MessagesErrorBody = {
  type: string;
  error: { type: string; code: string; message: string; request_id: string };
  request_id: string;
};

async function caught(p: Promise<unknown>): Promise<InstanceType<typeof Anthropic.APIError>> {
  try {
    await p;
  } catch (e) {
    if (e instanceof Anthropic.APIError) return e;
    throw e;
  }
  throw new Error('the call did not fail');
}

/** The SDK's error: its class, status, the messages-shaped body, and the request id it read from `request-id`. */
function expectSdkError(
  e: InstanceType<typeof Anthropic.APIError>,
  cls: ErrorClass,
  status: number,
  code: string,
): void {
  expect(e).toBeInstanceOf(cls);
  expect(e.status).toBe(status);
  expect(e.requestID).toMatch(RID);
  expect(e.headers?.get('x-gateway-request-id')).toBe(e.requestID);
  const b = e.error as MessagesErrorBody;
  expect(b.type).toBe('error');
  expect(b.request_id).toBe(e.requestID);
  expect(b.error.type).toBe(MESSAGES_ERROR_TYPE[status]);
  expect(b.error.code).toBe(code);
  expect(b.error.request_id).toBe(e.requestID);
  expect(b.error.message.endsWith(`(request id: ${e.requestID})`)).toBe(true);
}

describe('/v1/messages errors through @anthropic-ai/sdk', () => {
  const cases: Array<[string, () => Promise<string>, Record<string, unknown>, ErrorClass, number, string]> = [
    [
      'a bad token',
      async () => 'tw-not-a-token-0000000000',
      body('hi'),
      Anthropic.AuthenticationError,
      401,
      'invalid_token',
    ],
    [
      'validation (max_tokens missing)',
      async () => t.token,
      { model: MODEL, messages: [{ role: 'user', content: 'hi' }] },
      Anthropic.BadRequestError,
      400,
      'missing_parameter',
    ],
    [
      'an unknown model',
      async () => t.token,
      { ...body('hi'), model: 'no-such-model' },
      Anthropic.NotFoundError,
      404,
      'model_not_found',
    ],
    [
      'an exhausted quota',
      async () => (await t.h.token({ quota: 1 })).secret,
      body('hi'),
      Anthropic.RateLimitError,
      429,
      'insufficient_quota',
    ],
    [
      'a body over the limit',
      async () => t.token,
      body('x'.repeat(70_000)),
      Anthropic.APIError,
      413,
      'payload_too_large',
    ],
    [
      'an upstream permission refusal',
      async () => t.token,
      body('sim-fault:status:403'),
      Anthropic.PermissionDeniedError,
      403,
      'upstream_permission_denied',
    ],
    [
      'an upstream failure',
      async () => t.token,
      body('sim-fault:status:500'),
      Anthropic.InternalServerError,
      502,
      'upstream_error',
    ],
    [
      'an upstream overload',
      async () => t.token,
      body('sim-fault:status:503'),
      Anthropic.InternalServerError,
      503,
      'upstream_unavailable',
    ],
    [
      'an upstream content filter',
      async () => t.token,
      body('sim-fault:content-filter'),
      Anthropic.BadRequestError,
      400,
      'upstream_content_filtered',
    ],
  ];

  it.each(cases)(
    '%s: the class, status, messages body and request id (non-streaming and streaming)',
    async (_name, key, b, cls, status, code) => {
      const client = anthropicClient(t.h, await key());
      expectSdkError(await caught(client.messages.create(b as never)), cls, status, code);
      expectSdkError(await caught(client.messages.create({ ...b, stream: true } as never)), cls, status, code);
    },
  );

  it('the quota refusal says not to retry: x-should-retry: false', async () => {
    const e = await caught(anthropicClient(t.h, (await t.h.token({ quota: 1 })).secret).messages.create(body('hi')));
    expect(e.headers?.get('x-should-retry')).toBe('false');
  });
});

describe('the Fastify front answers the messages routes in the same shape', () => {
  it('count_tokens: a bad token, an unknown model, a bad body, a body over the limit', async () => {
    const bad = anthropicClient(t.h, 'tw-not-a-token-0000000000');
    expectSdkError(
      await caught(bad.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] })),
      Anthropic.AuthenticationError,
      401,
      'invalid_token',
    );
    const ok = anthropicClient(t.h, t.token);
    expectSdkError(
      await caught(ok.messages.countTokens({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] })),
      Anthropic.NotFoundError,
      404,
      'model_not_found',
    );
    expectSdkError(
      await caught(ok.messages.countTokens({ model: MODEL, messages: [] })),
      Anthropic.BadRequestError,
      400,
      'invalid_parameter',
    );
    expectSdkError(
      await caught(
        ok.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'x'.repeat(70_000) }] }),
      ),
      Anthropic.APIError,
      413,
      'payload_too_large',
    );
  });

  it('a wrong method on /v1/messages (405) and on count_tokens; family B stays on other /v1 paths', async () => {
    await expectB(await t.h.fetch('/v1/messages', { token: t.token }), 405, 'method_not_allowed');
    await expectB(await t.h.fetch('/v1/messages/count_tokens', { token: t.token }), 405, 'method_not_allowed');
    await expectB(await t.h.fetch('/v1/messages/nope', { method: 'POST', token: t.token, json: {} }), 404, 'not_found');
    const other = (await (
      await t.h.fetch('/v1/messagesx', { method: 'POST', token: t.token, json: {} })
    ).json()) as Record<string, unknown>;
    expect(Object.keys(other)).toEqual(['error']);
  });

  it('a request node cannot parse, on /v1/messages: the messages shape with the request id headers', async () => {
    const { port, hostname } = new URL(t.h.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const s = connect(Number(port), hostname, () =>
        s.write('POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'),
      );
      let out = '';
      s.on('data', (d) => (out += d.toString()));
      s.on('end', () => resolve(out));
      s.on('error', reject);
    });
    expect(raw.startsWith('HTTP/1.1 400')).toBe(true);
    const rid = /x-gateway-request-id: (\S+)/i.exec(raw)?.[1];
    expect(rid).toMatch(RID);
    expect(raw).toMatch(new RegExp(`\\r\\nx-request-id: ${rid}\\r\\n`, 'i'));
    expect(raw).toMatch(new RegExp(`\\r\\nrequest-id: ${rid}\\r\\n`, 'i'));
    const b = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as MessagesErrorBody;
    expect([b.type, b.error.type, b.request_id]).toEqual(['error', 'invalid_request_error', rid]);
  });
});
