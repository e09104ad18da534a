// The text lane (src/http/lane/text-lane.ts) serves the hot text routes straight from node:http, ahead of
// Fastify. Through the real server: it must answer exactly as the framework path would — routing, auth before
// the body, body handling, family B errors with the request id, the record. Client closes and shutdown:
// text-lane-endings.test.ts.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';
import { ledgerOfRequest, requestLogRows } from '../../support/store-rows.ts';
import { asResponse, CHAT, chat, expectChatOk } from '../../support/lane.ts';

const LIMIT = 2048;
const t = useHarness({ env: { TOLLWAY_BODY_LIMIT: String(LIMIT) } });

const simCount = (fragment = '') => t.h.sim.requestsTo(fragment).length;

describe('routing parity with the framework path', () => {
  it('a trailing slash and a query string reach the chat route (200), recorded under the route path', async () => {
    const before = simCount('/chat/completions');
    const plain = await expectChatOk(await t.h.fetch(CHAT, { method: 'POST', token: t.token, json: chat('plain') }));
    const slash = await expectChatOk(
      await t.h.fetch(`${CHAT}/`, { method: 'POST', token: t.token, json: chat('slash') }),
    );
    const query = await expectChatOk(
      await t.h.fetch(`${CHAT}?x=1`, { method: 'POST', token: t.token, json: chat('query') }),
    );
    expect(simCount('/chat/completions')).toBe(before + 3);
    expect(new Set([plain, slash, query]).size).toBe(3);
    for (const rid of [slash, query]) expect((await requestLogRows(t.h, rid)).map((r) => r.endpoint)).toEqual([CHAT]);
  });

  it('GET on a lane path is 405 method_not_allowed with Allow: POST; a near-miss path is 404 not_found', async () => {
    const r = await t.h.fetch(CHAT, { token: t.token });
    await expectB(r, 405, 'method_not_allowed');
    expect(r.headers.get('allow')?.split(/,\s*/)).toContain('POST');
    const before = simCount();
    await expectB(
      await t.h.fetch(`${CHAT}X`, { method: 'POST', token: t.token, json: chat('nope') }),
      404,
      'not_found',
    );
    expect(simCount()).toBe(before);
  });
});

describe('auth before the body', () => {
  it('no token → 401 missing_token, a bad token → 401 invalid_token; nothing reaches the upstream', async () => {
    const before = simCount();
    for (const path of [CHAT, '/v1/responses', '/v1/messages', '/v1/embeddings']) {
      await expectB(await t.h.fetch(path, { method: 'POST', json: chat('no token') }), 401, 'missing_token');
      await expectB(
        await t.h.fetch(path, { method: 'POST', token: 'tw-not-a-real-token-0123456789', json: chat('bad token') }),
        401,
        'invalid_token',
      );
    }
    expect(simCount()).toBe(before);
  });

  it('the token is checked before the body: a bad body, type or size from an unauthenticated caller is still 401', async () => {
    // Never-seen tokens: the check misses the cache and goes to the store (asynchronously), so a lane that
    // looked at the body meanwhile would answer 400/413/415 first.
    const bogus = () => `tw-bogus-${randomUUID()}`;
    await expectB(
      await t.h.fetch(CHAT, {
        method: 'POST',
        token: bogus(),
        body: '{"model": ',
        headers: { 'content-type': 'application/json' },
      }),
      401,
      'invalid_token',
    );
    await expectB(
      await t.h.fetch(CHAT, { method: 'POST', token: bogus(), body: 'x', headers: { 'content-type': 'text/plain' } }),
      401,
      'invalid_token',
    );
    await expectB(
      await t.h.fetch(CHAT, { method: 'POST', token: bogus(), json: chat('x'.repeat(LIMIT * 2)) }),
      401,
      'invalid_token',
    );
    await expectB(
      await t.h.fetch(CHAT, { method: 'POST', body: '{"model": ', headers: { 'content-type': 'application/json' } }),
      401,
      'missing_token',
    );
  });
});

describe('body handling on a lane route', () => {
  it('prototype poisoning is refused: 400 invalid_request (the body is JSON; its keys are refused), nothing sent upstream', async () => {
    const before = simCount();
    const body = '{"model":"qwx3.7-plus","__proto__":{"x":1},"messages":[{"role":"user","content":"hi"}]}';
    await expectB(
      await t.h.fetch(CHAT, { method: 'POST', token: t.token, body, headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_request',
    );
    const ctor =
      '{"model":"qwx3.7-plus","constructor":{"prototype":{"x":1}},"messages":[{"role":"user","content":"hi"}]}';
    await expectB(
      await t.h.fetch(CHAT, {
        method: 'POST',
        token: t.token,
        body: ctor,
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_request',
    );
    expect(simCount()).toBe(before);
  });

  it('bytes without a Content-Type → 415 unsupported_content_type', async () => {
    const r = await request(t.h.url + CHAT, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}` },
      body: Buffer.from(JSON.stringify(chat('no type'))),
    });
    await expectB(await asResponse(r), 415, 'unsupported_content_type');
  });

  it('application/json with parameters (and any case) is accepted', async () => {
    await expectChatOk(
      await t.h.fetch(CHAT, {
        method: 'POST',
        token: t.token,
        body: JSON.stringify(chat('charset')),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      }),
    );
    await expectChatOk(
      await t.h.fetch(CHAT, {
        method: 'POST',
        token: t.token,
        body: JSON.stringify(chat('case')),
        headers: { 'content-type': 'Application/JSON' },
      }),
    );
  });

  it('a chunked body (no Content-Length) over the limit → 413 payload_too_large, connection closed', async () => {
    const before = simCount();
    const chunk = Buffer.from('x'.repeat(512));
    async function* big() {
      yield Buffer.from('{"model":"qwx3.7-plus","messages":[{"role":"user","content":"');
      for (let i = 0; i < 8; i++) yield chunk; // 4 KiB of content: twice the limit
      yield Buffer.from('"}]}');
    }
    const r = await request(t.h.url + CHAT, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
      body: Readable.from(big()),
    });
    expect(r.headers.connection).toBe('close');
    await expectB(await asResponse(r), 413, 'payload_too_large');
    // under the limit, the same chunked transfer is read and answered
    async function* small() {
      yield Buffer.from(JSON.stringify(chat('small chunked')));
    }
    const ok = await request(t.h.url + CHAT, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
      body: Readable.from(small()),
    });
    await expectChatOk(await asResponse(ok));
    expect(simCount()).toBe(before + 1);
  });
});

describe('the record', () => {
  it('a successful lane call: one request-log row (endpoint, status 200) and one ledger row for its request id', async () => {
    const rid = await expectChatOk(await t.h.fetch(CHAT, { method: 'POST', token: t.token, json: chat('record me') }));
    const log = await requestLogRows(t.h, rid);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      endpoint: CHAT,
      method: 'POST',
      status: 200,
      error_code: null,
      model: 'qwx3.7-plus',
    });
    const ledger = await ledgerOfRequest(t.h, rid);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]!.request_id).toBe(rid);
    expect(Number(log[0]!.amount)).toBe(Number(ledger[0]!.amount));
  });

  it('a failed lane call (messages missing): a 400 missing_parameter row, no ledger row', async () => {
    const before = simCount();
    const r = await t.h.fetch(CHAT, { method: 'POST', token: t.token, json: { model: 'qwx3.7-plus' } });
    const body = await expectB(r, 400, 'missing_parameter');
    expect(body.error.param).toBe('messages');
    const rid = body.error.request_id;
    const log = await requestLogRows(t.h, rid);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ endpoint: CHAT, status: 400, error_code: 'missing_parameter' });
    expect(await ledgerOfRequest(t.h, rid)).toHaveLength(0);
    expect(simCount()).toBe(before);
  });
});
