// The one request life (src/http/front/life.ts), driven by both fronts — the text lane (/v1/chat/completions,
// /v1/messages …) and Fastify (/v1/images, /v1/messages/count_tokens, /vidx/v1): the path-decoding rule, the error
// answer in each family's shape, and exactly one record per request whether the client stays, leaves before its
// answer (mid-body, mid-call) or leaves after it.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';

const ctx = useHarness({ env: { TOLLWAY_TASK_POLLER: 'false' } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Shape = 'v1' | 'messages' | 'vidx';

function expectShape(
  shape: Shape,
  r: { status: number; rid: string | null; body: Record<string, unknown> },
  status: number,
  code: string,
) {
  expect(r.status).toBe(status);
  expect(r.rid).toMatch(/^req_/);
  if (shape === 'vidx') expect(r.body).toMatchObject({ request_id: r.rid, data: null, code: expect.any(Number) });
  else if (shape === 'messages')
    expect(r.body).toMatchObject({ type: 'error', request_id: r.rid, error: { code, request_id: r.rid } });
  else {
    expect(r.body.type).toBeUndefined();
    expect(r.body.error).toMatchObject({ code, request_id: r.rid });
  }
}

async function call(method: string, path: string, init: { json?: unknown; body?: string; token?: string } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${init.token ?? ctx.token}` };
  let body: string | undefined;
  if (init.json !== undefined) body = JSON.stringify(init.json);
  if (init.body !== undefined) body = init.body;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(`${ctx.h.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await r.text();
  return {
    status: r.status,
    rid: r.headers.get('x-gateway-request-id'),
    body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
  };
}

/** The request-log rows of a token, once they are written. */
async function rowsOf(tokenId: string, want = 1) {
  const h = ctx.h;
  let rows: Array<{ request_id: string; status: number; error_code: string | null }> = [];
  for (const end = Date.now() + 30_000; Date.now() < end; ) {
    await h.gw.deps.requestLog.flush();
    rows = await h.store.db
      .selectFrom('request_log')
      .select(['request_id', 'status', 'error_code'])
      .where('token_id', '=', tokenId)
      .execute();
    if (rows.length >= want) break;
    await sleep(20);
  }
  // Anything written twice would land by now too.
  await sleep(100);
  await h.gw.deps.requestLog.flush();
  return h.store.db
    .selectFrom('request_log')
    .select(['request_id', 'status', 'error_code'])
    .where('token_id', '=', tokenId)
    .execute();
}

const accessLines = (rid: string) =>
  ctx.h.logs.filter((l) => l.includes(`"request_id":"${rid}"`) && l.includes('"msg":"request"'));

describe('an encoded / in a path is refused the same way on both fronts', () => {
  const cases: Array<[string, string, string, Shape]> = [
    ['lane (chat)', 'POST', '/v1/chat%2Fcompletions', 'v1'],
    ['lane (chat, lower-case escape)', 'POST', '/v1/chat%2fcompletions', 'v1'],
    ['lane (embeddings)', 'POST', '/v1%2Fembeddings', 'v1'],
    ['Fastify (images)', 'POST', '/v1/images%2Fgenerations', 'v1'],
    ['Fastify (a parameter)', 'GET', '/v1/models/qwx3.7-plus%2Fx', 'v1'],
    ['Fastify (family A)', 'POST', '/vidx/v1/videos%2Ftext2video', 'vidx'],
  ];
  for (const [name, method, path, shape] of cases) {
    it(`${name}: ${method} ${path} → 404 in the family's shape`, async () => {
      const r = await call(
        method,
        path,
        method === 'POST'
          ? { json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hi' }], input: 'x', prompt: 'x' } }
          : {},
      );
      expectShape(shape, r, 404, 'not_found');
    });
  }

  it('a %2F in the query is no path: served', async () => {
    const r = await call('GET', '/v1/models?x=a%2Fb');
    expect(r.status).toBe(200);
  });

  it('an unreserved escape is decoded alike on both fronts; a reserved one (%3A) names no route on either', async () => {
    expect(
      (
        await call('POST', '/v1/chat/completion%73', {
          json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hi' }] },
        })
      ).status,
    ).toBe(200);
    expect((await call('GET', '/v1/model%73')).status).toBe(200);
    expectShape('v1', await call('POST', '/v1/chat%3Acompletions', { json: {} }), 404, 'not_found');
    expectShape('v1', await call('GET', '/v1/models%3Ax'), 404, 'not_found');
  });
});

describe('the error answer in the family shape, and one record, through both fronts', () => {
  const cases: Array<[string, string, Shape]> = [
    ['lane, family B', '/v1/chat/completions', 'v1'],
    ['lane, messages', '/v1/messages', 'messages'],
    ['Fastify, family B', '/v1/images/generations', 'v1'],
    ['Fastify, messages', '/v1/messages/count_tokens', 'messages'],
    ['Fastify, family A', '/vidx/v1/videos/text2video', 'vidx'],
  ];
  for (const [name, path, shape] of cases) {
    it(`${name}: invalid JSON → 400 invalid_json; one request-log row, one access line`, async () => {
      const t = await ctx.h.token({ name: `shape-${path}` });
      const r = await call('POST', path, { body: '{"model":', token: t.secret });
      expectShape(shape, r, 400, 'invalid_json');
      const rows = await rowsOf(t.id);
      expect(rows).toEqual([{ request_id: r.rid, status: 400, error_code: 'invalid_json' }]);
      expect(accessLines(r.rid!)).toHaveLength(1);
    });
  }
});

/** A raw request on its own connection, cut once `until` (given what came back so far) is true. */
async function cutRequest(request: string, until: (answer: string) => boolean): Promise<string> {
  const url = new URL(ctx.h.url);
  const s = connect(Number(url.port), url.hostname);
  let data = '';
  s.on('data', (c) => (data += c.toString('latin1')));
  s.on('error', () => undefined);
  await new Promise<void>((r) => s.once('connect', () => r()));
  s.write(request);
  for (let i = 0; i < 300 && !until(data); i++) await sleep(10);
  s.destroy();
  return data;
}

describe('a client that leaves: before, during and after its answer — one record each', () => {
  const fronts: Array<[string, string, (marker: string) => unknown]> = [
    ['the lane', '/v1/chat/completions', (m) => ({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: m }] })],
    ['Fastify', '/v1/images/generations', (m) => ({ model: 'qwx-image-2.0', prompt: m })],
  ];
  for (const [front, path, body] of fronts) {
    it(`${front}: gone in the middle of its body → one row, 499 client_closed`, async () => {
      const t = await ctx.h.token({ name: `mid-body-${front}` });
      let wrote = false;
      const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.secret}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"model":`;
      await cutRequest(head, () => {
        const was = wrote;
        wrote = true;
        return was;
      });
      const rows = await rowsOf(t.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status: 499, error_code: 'client_closed' });
      expect(accessLines(rows[0]!.request_id)).toHaveLength(1);
    });

    it(`${front}: gone while the upstream works → one row once the call settled, 499 client_closed`, async () => {
      const t = await ctx.h.token({ name: `mid-call-${front}` });
      const marker = `leave-during-${front.length}-${path.length}`;
      const json = JSON.stringify(body(`${marker} sim-fault:delay:400`));
      const reached = () => ctx.h.sim.requestsTo('').some((r) => JSON.stringify(r.body).includes(marker));
      await cutRequest(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.secret}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
        reached,
      );
      const rows = await rowsOf(t.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status: 499, error_code: 'client_closed' });
      expect(accessLines(rows[0]!.request_id)).toHaveLength(1);
    });

    it(`${front}: gone after its whole answer → one row, 200, no error`, async () => {
      const t = await ctx.h.token({ name: `after-${front}` });
      const json = JSON.stringify(body('after'));
      const answer = await cutRequest(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.secret}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
        (d) => d.trimEnd().endsWith('}'),
      );
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
      const rows = await rowsOf(t.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status: 200, error_code: null });
      expect(accessLines(rows[0]!.request_id)).toHaveLength(1);
    });
  }
});
