// Request ids and error shapes on every kind of response (both families, the health check, a gateway that
// drains), through the real server.
import { describe, expect, it } from 'vitest';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../../src/store/schema.ts';
import type { Store } from '../../src/store/store.ts';
import { expectA, expectB, RID } from '../support/error-shapes.ts';
import { useHarness } from '../support/harness.ts';

const t = useHarness({ env: { TOLLWAY_BODY_LIMIT: '2048' } });

describe('X-Gateway-Request-Id on every response kind', () => {
  it('2xx: healthz, models, admin, openapi — unique per response', async () => {
    const seen = new Set<string>();
    for (const r of [
      await t.h.fetch('/healthz'),
      await t.h.fetch('/v1/models', { token: t.token }),
      await t.h.admin('/admin/tokens'),
      await t.h.fetch('/openapi.json'),
    ]) {
      expect(r.status).toBe(200);
      const rid = r.headers.get('x-gateway-request-id')!;
      expect(rid).toMatch(RID);
      seen.add(rid);
    }
    expect(seen.size).toBe(4);
  });

  it('a client-sent X-Gateway-Request-Id is not trusted', async () => {
    const r = await t.h.fetch('/healthz', { headers: { 'x-gateway-request-id': 'req_forged' } });
    expect(r.headers.get('x-gateway-request-id')).not.toBe('req_forged');
  });

  it('401 (both families)', async () => {
    await expectB(await t.h.fetch('/v1/models'), 401, 'missing_token');
    await expectA(await t.h.fetch('/vidx/v1/videos/text2video', { method: 'POST', json: {} }), 401, 1001);
  });

  it('404 unknown paths in the family shape', async () => {
    await expectB(await t.h.fetch('/v1/no-such-endpoint', { token: t.token }), 404, 'not_found');
    await expectB(await t.h.fetch('/no-such-thing'), 404, 'not_found');
    await expectB(await t.h.admin('/admin/no-such-thing'), 404, 'not_found');
    const a = await expectA(await t.h.fetch('/vidx/v1/no-such-endpoint', { token: t.token }), 404, 1203);
    expect(a.message).toContain('/vidx/v1/no-such-endpoint');
  });

  it('400 for an undecodable URL, in the family shape', async () => {
    const { request } = await import('undici');
    for (const [path, family] of [
      ['/v1/%zz', 'b'],
      ['/vidx/v1/videos/%zz', 'a'],
      ['/%zz', 'b'],
    ] as const) {
      const r = await request(t.h.url + path, { headers: { authorization: `Bearer ${t.token}` } });
      const res = new Response(await r.body.text(), {
        status: r.statusCode,
        headers: r.headers as Record<string, string>,
      });
      if (family === 'a') await expectA(res, 400, 1201);
      else await expectB(res, 400, 'invalid_request');
    }
  });

  it('405 wrong method with Allow', async () => {
    const r = await t.h.fetch('/v1/models', { method: 'POST', token: t.token, json: {} });
    await expectB(r, 405, 'method_not_allowed');
    expect(r.headers.get('allow')).toMatch(/\bGET\b/);
    const r2 = await t.h.fetch('/healthz', { method: 'DELETE' });
    await expectB(r2, 405, 'method_not_allowed');
    expect(r2.headers.get('allow')).toContain('GET');
    const r3 = await t.h.admin('/admin/tokens', { method: 'PUT', json: {} });
    await expectB(r3, 405, 'method_not_allowed');
    expect(r3.headers.get('allow')?.split(', ').sort()).toEqual(expect.arrayContaining(['GET', 'POST']));
  });

  it('400 invalid_json (family B and A)', async () => {
    const bad = {
      method: 'POST',
      body: '{"model": "qwx3.7-plus", ',
      headers: { 'content-type': 'application/json' },
      token: t.token,
    };
    await expectB(await t.h.fetch('/v1/chat/completions', bad), 400, 'invalid_json');
    await expectA(await t.h.fetch('/vidx/v1/videos/text2video', bad), 400, 1200);
    await expectB(
      await t.h.admin('/admin/tokens', {
        method: 'POST',
        body: 'nope{',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_json',
    );
    // an empty JSON body is invalid JSON too
    await expectB(await t.h.fetch('/v1/chat/completions', { ...bad, body: '' }), 400, 'invalid_json');
  });

  it('a model that is not a string is invalid_parameter, not reported missing; absent or null is missing_parameter', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }] }],
      ['/v1/embeddings', { input: 'hi' }],
      ['/v1/images/generations', { prompt: 'a cat' }],
      ['/v1/videos', { prompt: 'a cat' }],
    ];
    for (const [path, body] of calls) {
      for (const model of [1, ['qwx3.7-plus'], { name: 'qwx3.7-plus' }, true]) {
        const b = await expectB(
          await t.h.fetch(path, { method: 'POST', token: t.token, json: { ...body, model } }),
          400,
          'invalid_parameter',
        );
        expect(b.error.param).toBe('model');
      }
      for (const json of [body, { ...body, model: null }])
        await expectB(await t.h.fetch(path, { method: 'POST', token: t.token, json }), 400, 'missing_parameter');
    }
  });

  it('a JSON body using a prototype key is invalid_request, not "not valid JSON" (family B, A and the admin API)', async () => {
    const chat = '{"model":"qwx3.7-plus","__proto__":{"stream":true},"messages":[{"role":"user","content":"hi"}]}';
    const b = await expectB(
      await t.h.fetch('/v1/chat/completions', {
        method: 'POST',
        token: t.token,
        body: chat,
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_request',
    );
    expect(b.error.message).toContain('__proto__');
    await expectA(
      await t.h.fetch('/vidx/v1/videos/text2video', {
        method: 'POST',
        token: t.token,
        body: '{"prompt":"x","constructor":{"prototype":{"a":1}}}',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      1201,
    );
    await expectB(
      await t.h.admin('/admin/tokens', {
        method: 'POST',
        body: '{"name":"x","__proto__":{"a":1}}',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_request',
    );
  });

  it('413 payload_too_large over TOLLWAY_BODY_LIMIT (family B and A)', async () => {
    const big = { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'x'.repeat(4096) }] };
    await expectB(
      await t.h.fetch('/v1/chat/completions', { method: 'POST', token: t.token, json: big }),
      413,
      'payload_too_large',
    );
    await expectA(
      await t.h.fetch('/vidx/v1/videos/text2video', {
        method: 'POST',
        token: t.token,
        json: { prompt: 'x'.repeat(4096) },
      }),
      413,
      1200,
    );
    await expectB(
      await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'x'.repeat(4096) } }),
      413,
      'payload_too_large',
    );
    // a body just under the limit is parsed (and then validated), not refused for size
    const r = await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'x'.repeat(150) } });
    expect(r.status).toBe(201);
  });

  it('415 unsupported content type', async () => {
    await expectB(
      await t.h.admin('/admin/tokens', {
        method: 'POST',
        body: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      415,
      'unsupported_content_type',
    );
    await expectB(
      await t.h.admin('/admin/tokens', {
        method: 'POST',
        body: '{"name":"x"}',
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      'unsupported_content_type',
    );
    await expectA(
      await t.h.fetch('/vidx/v1/videos/text2video', {
        method: 'POST',
        token: t.token,
        body: 'prompt=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      415,
      1200,
    );
    await expectB(
      await t.h.fetch('/v1/chat/completions', {
        method: 'POST',
        token: t.token,
        body: '{"model":"qwx3.7-plus"}',
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      'unsupported_content_type',
    );
  });

  it('403 and validation 400s from the admin API carry the request id too', async () => {
    await expectB(await t.h.fetch('/admin/tokens', { token: t.token }), 403, 'permission_denied');
    const b = await expectB(await t.h.admin('/admin/tokens', { method: 'POST', json: {} }), 400, 'missing_parameter');
    expect(b.error.param).toBe('name');
  });

  it('model_not_found (404) for an unknown model', async () => {
    const b = await expectB(await t.h.fetch('/v1/models/no-such-model', { token: t.token }), 404, 'model_not_found');
    expect(b.error.type).toBe('invalid_request_error');
  });
});

describe('GET /readyz and /healthz', () => {
  it('readyz checks the store: 503 service_unavailable (with request id) when the database is unreachable; healthz (liveness) stays 200', async () => {
    expect((await t.h.fetch('/readyz')).status).toBe(200);
    const deps = t.h.gw.deps as { store: Store };
    const real = deps.store;
    // A store whose connections all fail, as when the database server is gone.
    const broken = new Kysely<Database>({
      dialect: new SqliteDialect({
        database: async () => {
          throw new Error('database gone');
        },
      }),
    });
    deps.store = { ...real, db: broken };
    try {
      const body = await expectB(await t.h.fetch('/readyz'), 503, 'service_unavailable');
      expect(body.error.message).toContain('the database is not reachable');
      expect(body.error.message).not.toContain('database gone');
      expect(await (await t.h.fetch('/healthz')).json()).toEqual({ status: 'ok' });
    } finally {
      deps.store = real;
      await broken.destroy().catch(() => undefined);
    }
    expect((await t.h.fetch('/readyz')).status).toBe(200);
  });
});

describe('during shutdown', () => {
  const t2 = useHarness();

  it('a request arriving while the gateway drains gets 503 service_unavailable in the family shape, with request id', async () => {
    const { Client } = await import('undici');
    const c = new Client(t2.h.url, { pipelining: 2 });
    try {
      const { secret } = await t2.h.token();
      // An in-flight request keeps the connection busy (not idle) while close() starts.
      const slow = c.request({
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'qwx3.7-plus',
          messages: [{ role: 'user', content: 'drain sim-fault:delay:1000' }],
        }),
      });
      while (!t2.h.sim.requestsTo('/chat/completions').some((r) => JSON.stringify(r.body).includes('drain')))
        await new Promise((r) => setTimeout(r, 10));
      const closing = t2.h.gw.app.close();
      // Pipelined on the same busy connection: the server reads it after close() began.
      const late = c.request({ method: 'GET', path: '/v1/models', headers: { authorization: `Bearer ${secret}` } });
      const first = await slow;
      expect(first.statusCode).toBe(200); // in-flight work drains
      await first.body.text();
      const r = await late;
      const text = await r.body.text();
      const res = new Response(text, { status: r.statusCode, headers: r.headers as Record<string, string> });
      await expectB(res, 503, 'service_unavailable');
      expect(r.headers.connection).toBe('close');
      await closing;
    } finally {
      await c.close().catch(() => undefined);
    }
  });
});
