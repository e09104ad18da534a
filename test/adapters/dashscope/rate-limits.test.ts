import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postDashscopeText } from '../../../src/adapters/dashscope/compat-chat-common.ts';
import { dashscopeError } from '../../../src/adapters/dashscope/errors.ts';
import { UpstreamClient } from '../../../src/adapters/http-client.ts';
import { retryAfterMs } from '../../../src/adapters/retry-after.ts';

// Each form DashScope answers a rate limit in: native {code,message}, compatible-mode {error:{code,type,message}} and
// the messages-compatible {type:"error", error:{type,message}}, with the limit it names.
const FORMS = [
  [
    'native RPM',
    { code: 'Throttling.RateQuota', message: 'Requests rate limit exceeded, please try again later.' },
    'requests',
  ],
  [
    'native TPM',
    { code: 'Throttling.AllocationQuota', message: 'Allocated quota exceeded, please increase your quota limit.' },
    'tokens',
  ],
  [
    'native burst',
    { code: 'Throttling.BurstRate', message: 'Request rate increased too quickly, please retry later.' },
    'burst',
  ],
  ['native bare Throttling', { code: 'Throttling', message: 'Too many requests.' }, 'requests'],
  [
    'compatible RPM',
    { error: { message: 'You exceeded your current requests list.', type: 'limit_requests', code: 'limit_requests' } },
    'requests',
  ],
  [
    'compatible TPM',
    {
      error: {
        message: 'You exceeded your current quota, please check your plan and billing details.',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      },
    },
    'tokens',
  ],
  [
    'compatible burst (message only)',
    {
      error: {
        message: 'Request rate increased too quickly, please retry later.',
        type: 'rate_limit_error',
        code: null,
      },
    },
    'burst',
  ],
  [
    'messages-compatible TPM (message only)',
    { type: 'error', error: { type: 'rate_limit_error', message: 'Allocated quota exceeded.' } },
    'tokens',
  ],
  ['a 429 that says nothing', null, 'requests'],
] as const;

describe('DashScope rate limits → upstream_rate_limited with the limit they name', () => {
  it.each(FORMS)('%s', (_name, body, limit) => {
    const e = dashscopeError(429, { ...body, request_id: 'up-1' });
    expect([e.code, e.status, e.upstreamLimit, e.accountRefused]).toEqual(['upstream_rate_limited', 429, limit, false]);
    // Our words only; the upstream's for operators.
    expect(e.message).toBe('Upstream rate limit exceeded; retry later');
    expect(e.retryAfterMs).toBeNull();
  });

  it("the token limit (Throttling.AllocationQuota) is a rate limit, not the account's quota problem", () => {
    const e = dashscopeError(429, {
      code: 'Throttling.AllocationQuota',
      message: 'Allocated quota exceeded, please increase your quota limit.',
    });
    expect(e).toMatchObject({
      code: 'upstream_rate_limited',
      upstreamLimit: 'tokens',
      accountRefused: false,
      notEntitled: false,
    });
    expect(e.message).not.toMatch(/operator|quota/i);
  });

  it('a Throttling error event inside a stream (no status of its own) is a rate limit too', () => {
    const e = dashscopeError(500, { code: 'Throttling.BurstRate', message: 'Request rate increased too quickly' });
    expect([e.code, e.upstreamLimit]).toEqual(['upstream_rate_limited', 'burst']);
  });

  it('only a rate limit carries a limit kind and a Retry-After', () => {
    expect(dashscopeError(400, { code: 'InvalidParameter', message: 'bad' }, 2000)).toMatchObject({
      upstreamLimit: null,
      retryAfterMs: null,
    });
    expect(dashscopeError(429, { code: 'Throttling.RateQuota', message: 'x' }, 2000)).toMatchObject({
      upstreamLimit: 'requests',
      retryAfterMs: 2000,
    });
  });
});

describe('Retry-After', () => {
  it('reads delta-seconds and HTTP dates; ignores what it cannot read', () => {
    const now = Date.parse('2026-12-02T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs(['1.5'], now)).toBe(1500);
    expect(retryAfterMs('Wed, 02 Dec 2026 00:00:07 GMT', now)).toBe(7000);
    expect(retryAfterMs('Wed, 01 Dec 2026 23:00:00 GMT', now)).toBe(0);
    expect([
      retryAfterMs(undefined, now),
      retryAfterMs('', now),
      retryAfterMs('soon', now),
      retryAfterMs('-1', now),
    ]).toEqual([undefined, undefined, undefined, undefined]);
  });

  describe('from an answer', () => {
    let server: Server;
    let baseUrl = '';
    beforeAll(async () => {
      server = createServer((req, res) => {
        req.resume();
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (req.url?.includes('with-retry')) headers['retry-after'] = '4';
        res.writeHead(429, headers);
        res.end(
          JSON.stringify({
            error: {
              message: 'You exceeded your current requests list.',
              type: 'limit_requests',
              code: 'limit_requests',
            },
            request_id: 'r',
          }),
        );
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const addr = server.address();
      baseUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it("keeps the upstream's Retry-After on the error, and none when it sent none", async () => {
      const client = new UpstreamClient();
      const call = (path: string) =>
        postDashscopeText(client, { target: { baseUrl, apiKey: 'sk-x' } }, { path, body: '{}' }).catch(
          (e: unknown) => e,
        );
      expect(await call('/with-retry')).toMatchObject({
        code: 'upstream_rate_limited',
        upstreamLimit: 'requests',
        retryAfterMs: 4000,
      });
      expect(await call('/without')).toMatchObject({
        code: 'upstream_rate_limited',
        upstreamLimit: 'requests',
        retryAfterMs: null,
      });
    });
  });
});
