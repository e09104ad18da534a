// The cross-cutting HTTP rules (http/front/), through every route family and both fronts: the text lane
// (/v1/chat/completions …) and Fastify (/v1/models, images, videos, /vidx/v1, /admin).
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';

const ctx = useHarness({ env: { TOLLWAY_REQUEST_TIMEOUT_MS: '1500', TOLLWAY_TASK_POLLER: 'false' } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Probe {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  family: 'v1' | 'vidx';
  admin?: boolean;
  json?: unknown;
}

const PROBES: Probe[] = [
  {
    name: 'lane (chat)',
    method: 'POST',
    path: '/v1/chat/completions',
    family: 'v1',
    json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hi' }] },
  },
  { name: 'v1 on Fastify (models)', method: 'GET', path: '/v1/models', family: 'v1' },
  {
    name: 'v1 on Fastify (images)',
    method: 'POST',
    path: '/v1/images/generations',
    family: 'v1',
    json: { model: 'qwx-image-2.0', prompt: 'a cat' },
  },
  {
    name: 'vidx',
    method: 'POST',
    path: '/vidx/v1/videos/text2video',
    family: 'vidx',
    json: { model_name: 'vidx-v1', prompt: 'waves' },
  },
  { name: 'admin', method: 'GET', path: '/admin/tokens', family: 'v1', admin: true },
];

async function send(p: Probe, path: string) {
  const h = ctx.h;
  const init = { method: p.method, ...(p.json !== undefined ? { json: p.json } : {}) };
  const r = p.admin ? await h.admin(path, init) : await h.fetch(path, { ...init, token: ctx.token });
  return {
    status: r.status,
    rid: r.headers.get('x-gateway-request-id'),
    body: (await r.json()) as Record<string, unknown>,
  };
}

function expectFamilyError(
  family: 'v1' | 'vidx',
  r: { status: number; rid: string | null; body: Record<string, unknown> },
  status: number,
  code: string,
) {
  expect(r.status).toBe(status);
  expect(r.rid).toMatch(/^req_/);
  if (family === 'vidx') expect(r.body).toMatchObject({ request_id: r.rid, data: null });
  else expect(r.body.error).toMatchObject({ code, request_id: r.rid });
}

describe('one rule for every route family', () => {
  for (const p of PROBES) {
    it(`${p.name}: %00 in the query is refused in the family's shape`, async () => {
      expectFamilyError(p.family, await send(p, `${p.path}?x=a%00b`), 400, 'invalid_request');
    });
  }

  it('a percent-encoded path is decoded the same way on both fronts', async () => {
    const lane = await send(PROBES[0]!, '/v1/chat/completion%73');
    const fastify = await send(PROBES[1]!, '/v1/model%73');
    expect([lane.status, fastify.status]).toEqual([200, 200]);
    expect(lane.body.object).toBe('chat.completion');
    expect(fastify.body.object).toBe('list');
  });
});

describe('a client that leaves before the answer: one record, 499 client_closed, carrying what was charged', () => {
  const cases: Array<[string, string, unknown]> = [
    [
      'lane (chat)',
      '/v1/chat/completions',
      { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'leave-chat sim-fault:delay:600' }] },
    ],
    [
      'images (Fastify)',
      '/v1/images/generations',
      { model: 'qwx-image-2.0', prompt: 'leave-images sim-fault:delay:600' },
    ],
    [
      'vidx task creation (Fastify)',
      '/vidx/v1/videos/text2video',
      { model_name: 'vidx-v1', prompt: 'leave-vidx sim-fault:delay:600' },
    ],
  ];
  for (const [name, path, json] of cases) {
    it(name, async () => {
      const h = ctx.h;
      const t = await h.token({ name: `leaver-${name}` });
      const ac = new AbortController();
      const pending = h
        .fetch(path, { method: 'POST', token: t.secret, json, signal: ac.signal })
        .catch((e: unknown) => (e as Error).name);
      const marker = JSON.stringify(json).match(/leave-[a-z]+/)![0];
      const reached = () => h.sim.requestsTo('').some((r) => JSON.stringify(r.body).includes(marker));
      for (let i = 0; i < 300 && !reached(); i++) await sleep(10);
      ac.abort();
      expect(await pending).toBe('AbortError');
      let rows: Array<{ request_id: string; status: number; error_code: string | null; amount: number }> = [];
      for (let i = 0; i < 150 && rows.length === 0; i++) {
        await sleep(20);
        await h.gw.deps.requestLog.flush();
        rows = await h.store.db
          .selectFrom('request_log')
          .select(['request_id', 'status', 'error_code', 'amount'])
          .where('token_id', '=', t.id)
          .execute();
      }
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status: 499, error_code: 'client_closed' });
      await h.gw.deps.meter.flush();
      const ledger = await h.store.db
        .selectFrom('ledger')
        .select('amount')
        .where('request_id', '=', rows[0]!.request_id)
        .execute();
      expect(Number(rows[0]!.amount)).toBe(ledger.reduce((a, l) => a + Number(l.amount), 0));
      const lines = h.logs.filter((l) => l.includes(rows[0]!.request_id) && l.includes('"status":499'));
      expect(lines.length).toBeGreaterThanOrEqual(1);
    });
  }
});

/** Raw HTTP on one connection: what comes back, and whether the server closed the connection after it. */
function raw(
  request: string | Buffer,
  opts: { dripMs?: number; waitMs?: number } = {},
): Promise<{ head: string; closed: boolean; ms: number }> {
  const url = new URL(ctx.h.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const s = connect(Number(url.port), url.hostname);
    let data = '';
    let closed = false;
    s.on('data', (c) => (data += c.toString('latin1')));
    s.on('close', () => {
      closed = true;
      resolve({ head: data, closed, ms: Date.now() - started });
    });
    s.on('error', () => undefined);
    s.on('connect', () => {
      if (opts.dripMs) {
        s.write(request);
        const t = setInterval(() => (s.writable ? s.write('a') : clearInterval(t)), opts.dripMs);
        s.on('close', () => clearInterval(t));
      } else s.write(request);
    });
    setTimeout(() => {
      if (!closed) {
        s.destroy();
        resolve({ head: data, closed: false, ms: Date.now() - started });
      }
    }, opts.waitMs ?? 5000).unref();
    void reject;
  });
}

describe('connections end cleanly', () => {
  it('a multipart upload refused part-way (unnamed part) answers Connection: close and the server closes the socket', async () => {
    const boundary = 'XyZ';
    const body = `--${boundary}\r\nContent-Disposition: form-data\r\n\r\nvalue\r\n--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nqwx-image-2.0\r\n--${boundary}--\r\n`;
    const req = `POST /v1/images/edits HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ctx.token}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${Buffer.byteLength(body) + 100000}\r\n\r\n${body}`;
    const r = await raw(req, { waitMs: 4000 });
    expect(r.head).toMatch(/^HTTP\/1\.1 4\d\d/);
    expect(r.head.toLowerCase()).toContain('connection: close');
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(3000);
  });

  it('a multipart upload with too many parts: 413, Connection: close, socket closed', async () => {
    const boundary = 'B0';
    const parts = Array.from(
      { length: 400 },
      (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`,
    ).join('');
    const body = `${parts}--${boundary}--\r\n`;
    const req = `POST /v1/images/edits HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ctx.token}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${Buffer.byteLength(body) + 100000}\r\n\r\n${body}`;
    const r = await raw(req, { waitMs: 4000 });
    expect(r.head).toMatch(/^HTTP\/1\.1 413/);
    expect(r.head.toLowerCase()).toContain('connection: close');
    expect(r.closed).toBe(true);
  });

  for (const auth of [true, false]) {
    it(`a dripping body (${auth ? 'authenticated' : 'unauthenticated'}) is cut after TOLLWAY_REQUEST_TIMEOUT_MS`, async () => {
      const head = `POST /v1/images/generations HTTP/1.1\r\nHost: x\r\n${auth ? `Authorization: Bearer ${ctx.token}\r\n` : ''}Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"model":"`;
      const r = await raw(head, { dripMs: 100, waitMs: 6000 });
      expect(r.closed).toBe(true);
      expect(r.ms).toBeLessThan(4500);
      expect(r.head).toMatch(/^HTTP\/1\.1 (401|408)/);
    });
  }
});
