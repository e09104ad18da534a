// Request ids and error shapes on every kind of response, through the real server.
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
    for (const r of [await t.h.fetch('/healthz'), await t.h.fetch('/v1/models', { token: t.token }), await t.h.admin('/admin/tokens'), await t.h.fetch('/openapi.json')]) {
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
    for (const [path, family] of [['/v1/%zz', 'b'], ['/vidx/v1/videos/%zz', 'a'], ['/%zz', 'b']] as const) {
      const r = await request(t.h.url + path, { headers: { authorization: `Bearer ${t.token}` } });
      const res = new Response(await r.body.text(), { status: r.statusCode, headers: r.headers as Record<string, string> });
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
    const bad = { method: 'POST', body: '{"model": "qwx3.7-plus", ', headers: { 'content-type': 'application/json' }, token: t.token };
    await expectB(await t.h.fetch('/v1/chat/completions', bad), 400, 'invalid_json');
    await expectA(await t.h.fetch('/vidx/v1/videos/text2video', bad), 400, 1200);
    await expectB(await t.h.admin('/admin/tokens', { method: 'POST', body: 'nope{', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    // an empty JSON body is invalid JSON too
    await expectB(await t.h.fetch('/v1/chat/completions', { ...bad, body: '' }), 400, 'invalid_json');
  });

  it('413 payload_too_large over TOLLWAY_BODY_LIMIT (family B and A)', async () => {
    const big = { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'x'.repeat(4096) }] };
    await expectB(await t.h.fetch('/v1/chat/completions', { method: 'POST', token: t.token, json: big }), 413, 'payload_too_large');
    await expectA(await t.h.fetch('/vidx/v1/videos/text2video', { method: 'POST', token: t.token, json: { prompt: 'x'.repeat(4096) } }), 413, 1200);
    await expectB(await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'x'.repeat(4096) } }), 413, 'payload_too_large');
    // a body just under the limit is parsed (and then validated), not refused for size
    const r = await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'x'.repeat(150) } });
    expect(r.status).toBe(201);
  });

  it('415 unsupported content type', async () => {
    await expectB(await t.h.admin('/admin/tokens', { method: 'POST', body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_content_type');
    await expectB(await t.h.admin('/admin/tokens', { method: 'POST', body: '{"name":"x"}', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_content_type');
    await expectA(await t.h.fetch('/vidx/v1/videos/text2video', { method: 'POST', token: t.token, body: 'prompt=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 1200);
    await expectB(await t.h.fetch('/v1/chat/completions', { method: 'POST', token: t.token, body: '{"model":"qwx3.7-plus"}', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_content_type');
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

describe('GET /openapi.json', () => {
  const CONTRACT: Array<[string, string]> = [
    ['post', '/vidx/v1/videos/text2video'],
    ['post', '/vidx/v1/videos/multi-elements/init-selection'],
    ['post', '/vidx/v1/videos/multi-elements/add-selection'],
    ['post', '/vidx/v1/videos/multi-elements/delete-selection'],
    ['post', '/vidx/v1/videos/multi-elements/clear-selection'],
    ['post', '/vidx/v1/videos/multi-elements/preview-selection'],
    ['post', '/vidx/v1/videos/multi-elements'],
    ['get', '/vidx/v1/videos/multi-elements/{task_id}'],
    ['get', '/vidx/v1/videos/multi-elements'],
    ['post', '/vidx/v1/videos/omni-video'],
    ['get', '/v1/models'],
    ['post', '/v1/chat/completions'],
    ['post', '/v1/responses'],
    ['post', '/v1/messages'],
    ['post', '/v1/embeddings'],
    ['post', '/v1/images/generations'],
    ['post', '/v1/images/edits'],
    ['post', '/v1/videos'],
    ['get', '/v1/videos/{video_id}'],
    ['get', '/v1/videos/{video_id}/content'],
  ];
  const ADMIN: Array<[string, string]> = [
    ['post', '/admin/tokens'],
    ['get', '/admin/tokens'],
    ['delete', '/admin/tokens/{id}'],
    ['post', '/admin/channels'],
    ['get', '/admin/channels'],
    ['post', '/admin/channels/{id}/disable'],
    ['get', '/admin/audit'],
  ];

  it('is served without auth, parses, and lists every contract path with bearer security and error shapes', async () => {
    const r = await t.h.fetch('/openapi.json');
    expect(r.status).toBe(200);
    type Doc = {
      openapi: string;
      paths: Record<string, Record<string, { security?: Array<Record<string, unknown>>; responses: Record<string, { $ref?: string }>; requestBody?: { content: Record<string, unknown> } }>>;
      components: { securitySchemes: Record<string, { type: string; scheme: string }>; schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    const doc = JSON.parse(await r.text()) as Doc;
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    for (const [method, path] of CONTRACT) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method.toUpperCase()} ${path}`).toBeDefined();
      expect(op!.security).toEqual([{ bearer: [] }]);
      expect(op!.responses['200']).toBeDefined();
      const errRef = path.startsWith('/vidx/') ? '#/components/responses/FamilyAError' : '#/components/responses/FamilyBError';
      for (const s of ['401', '404', '413']) expect(op!.responses[s]?.$ref, `${path} ${s}`).toBe(errRef);
      if (method === 'post') expect(op!.requestBody?.content['application/json']).toBeDefined();
      // described by hand, not by the generic fallback for undocumented routes
      expect((op as { summary?: string }).summary, `${method} ${path}`).not.toMatch(/^(GET|POST|DELETE|PUT|PATCH) \//);
    }
    for (const [method, path] of ADMIN) {
      expect(doc.paths[path]?.[method]?.security, `${method} ${path}`).toEqual([{ adminBearer: [] }]);
    }
    expect(doc.paths['/healthz']?.get?.security).toEqual([]);
    expect(doc.paths['/v1/images/edits']?.post?.requestBody?.content['multipart/form-data']).toBeDefined();
    // every HTTP status an error code can have is described (410 session/result expired, 422 no image output …)
    const { ERROR_CODES } = await import('../../src/errors/codes.ts');
    for (const { status } of Object.values(ERROR_CODES)) {
      expect(doc.paths['/v1/chat/completions']!.post!.responses[String(status)]?.$ref, `status ${status}`).toBe('#/components/responses/FamilyBError');
      expect(doc.paths['/vidx/v1/videos/text2video']!.post!.responses[String(status)]?.$ref, `status ${status}`).toBe('#/components/responses/FamilyAError');
    }
    expect(Object.keys(doc.components.schemas.FamilyBError!.properties!)).toEqual(['error']);
    expect(Object.keys(doc.components.schemas.FamilyAError!.properties!).sort()).toEqual(['code', 'data', 'message', 'request_id']);
  });

  it('describes the admin metering routes by hand: their query parameters and answer fields', async () => {
    type Param = { name: string; in: string; required?: boolean };
    type Op = { summary: string; security: unknown; parameters?: Param[]; requestBody?: unknown; responses: Record<string, { content?: Record<string, { schema: { properties?: Record<string, { items?: { properties?: Record<string, unknown> } }> } }> }> };
    const doc = (await (await t.h.fetch('/openapi.json')).json()) as { paths: Record<string, Record<string, Op>> };
    const METERING: Array<[string, string, string[], string[]]> = [
      // method, path, parameters (query or path), fields of each item of `data` (or of the answer itself)
      ['get', '/admin/ledger', ['token_id', 'model', 'request_id', 'task_id', 'since', 'until', 'limit', 'before_id'], ['id', 'idempotency_key', 'token_id', 'model', 'kind', 'quantities', 'unit_prices', 'amount', 'request_id', 'task_id', 'upstream_request_id', 'created_at']],
      ['get', '/admin/logs', ['request_id', 'token_id', 'model', 'since', 'until', 'limit', 'before'], ['request_id', 'token_id', 'model', 'endpoint', 'status', 'latency_ms', 'usage', 'amount', 'upstream_request_id']],
      ['get', '/admin/bills', ['token_id', 'model', 'period', 'since', 'until', 'format'], ['token_id', 'token_name', 'period', 'period_start', 'entries', 'amount', 'amount_units', 'models']],
      ['get', '/admin/prices', [], ['model', 'kind', 'price', 'price_overridden']],
      ['get', '/admin/prices/{model}', ['model'], []],
      ['put', '/admin/prices/{model}', ['model'], []],
      ['delete', '/admin/prices/{model}', ['model'], []],
      ['get', '/admin/audit', ['limit'], ['id', 'at', 'actor', 'action', 'target', 'detail', 'request_id']],
    ];
    for (const [method, path, params, fields] of METERING) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op!.summary, `${method} ${path}`).not.toMatch(/^(GET|POST|DELETE|PUT|PATCH) \//);
      expect(op!.security).toEqual([{ adminBearer: [] }]);
      expect((op!.parameters ?? []).map((p) => p.name).sort(), `${method} ${path}`).toEqual([...params].sort());
      for (const p of op!.parameters ?? []) expect(p.in, `${path} ${p.name}`).toBe(p.name === 'model' && path.includes('{model}') ? 'path' : 'query');
      const schema = op!.responses['200']!.content!['application/json']!.schema;
      const itemProps = schema.properties?.data?.items?.properties ?? {};
      for (const f of fields) expect(Object.keys(itemProps), `${path} data[].${f}`).toContain(f);
    }
    expect(doc.paths['/admin/prices/{model}']!.put!.requestBody).toBeDefined();
    expect(Object.keys(doc.paths['/admin/bills']!.get!.responses['200']!.content!)).toEqual(expect.arrayContaining(['application/json', 'text/csv']));
    expect(Object.keys(doc.paths['/admin/ledger']!.get!.responses['200']!.content!['application/json']!.schema.properties!)).toEqual(expect.arrayContaining(['data', 'has_more', 'next_before_id']));
  });
});

describe('GET /healthz', () => {
  it('checks the store: 503 service_unavailable (with request id) when the database is unreachable', async () => {
    expect((await t.h.fetch('/healthz')).status).toBe(200);
    const deps = t.h.gw.deps as { store: Store };
    const real = deps.store;
    // A store whose connections all fail, as when the database server is gone.
    const broken = new Kysely<Database>({ dialect: new SqliteDialect({ database: async () => { throw new Error('database gone'); } }) });
    deps.store = { ...real, db: broken };
    try {
      const body = await expectB(await t.h.fetch('/healthz'), 503, 'service_unavailable');
      expect(body.error.message).not.toContain('database gone');
    } finally {
      deps.store = real;
      await broken.destroy().catch(() => undefined);
    }
    expect((await t.h.fetch('/healthz')).status).toBe(200);
  });
});

describe('OpenAPI covers the server', () => {
  it('routes nobody described yet get a generic entry with the right security and family', async () => {
    const { openApiDocument } = await import('../../src/http/openapi.ts');
    type Op = { security: unknown; parameters?: Array<{ name: string; in: string }>; responses: Record<string, { $ref?: string }>; requestBody?: unknown };
    const doc = openApiDocument([
      { url: '/admin/widgets/:wid', method: ['GET', 'HEAD', 'DELETE'] },
      { url: '/vidx/v1/videos/new-kind', method: 'POST' },
      { url: '/v1/models/:other', method: 'GET' },
    ]) as { paths: Record<string, Record<string, Op>> };
    expect(doc.paths['/admin/widgets/{wid}']?.get?.security).toEqual([{ adminBearer: [] }]);
    expect(doc.paths['/admin/widgets/{wid}']?.delete?.parameters).toEqual([expect.objectContaining({ name: 'wid', in: 'path' })]);
    expect(doc.paths['/admin/widgets/{wid}']?.head).toBeUndefined();
    expect(doc.paths['/vidx/v1/videos/new-kind']?.post?.responses['404']?.$ref).toBe('#/components/responses/FamilyAError');
    expect(doc.paths['/vidx/v1/videos/new-kind']?.post?.requestBody).toBeDefined();
    // the same route shape as a described path keeps the hand-written description
    expect(doc.paths['/v1/models/{other}']).toBeUndefined();
  });

  it('every registered route (method and path) is described in /openapi.json', async () => {
    const doc = (await (await t.h.fetch('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    const described = new Set<string>();
    for (const [p, ops] of Object.entries(doc.paths)) for (const m of Object.keys(ops)) described.add(`${m.toUpperCase()} ${p.replace(/\{[^}]+\}/g, ':p')}`);
    const missing: string[] = [];
    const walk = (text: string) => {
      // printRoutes with commonPrefix:false prints one line per path segment tree; rebuild full paths.
      const stack: string[] = [];
      for (const line of text.split('\n')) {
        const m = /^([│ ]*)[├└]── (\S+) \(([^)]+)\)/.exec(line);
        if (!m) continue;
        const depth = m[1]!.length / 4;
        stack.length = depth;
        stack[depth] = m[2]!;
        const path = stack.join('').replace(/:[A-Za-z0-9_]+/g, ':p');
        for (const method of m[3]!.split(', ')) if (method !== 'HEAD' && !described.has(`${method} ${path}`)) missing.push(`${method} ${path}`);
      }
    };
    walk(t.h.gw.app.printRoutes({ commonPrefix: false }));
    expect(missing).toEqual([]);
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
      const slow = c.request({ method: 'POST', path: '/v1/chat/completions', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'drain sim-fault:delay:1000' }] }) });
      while (!t2.h.sim.requestsTo('/chat/completions').some((r) => JSON.stringify(r.body).includes('drain'))) await new Promise((r) => setTimeout(r, 10));
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
