// The streaming upstream reader (src/adapters/http-stream.ts) against a real local HTTP server: order and
// completeness, upstream backpressure, an early stop aborting the upstream request, and failures before and
// after the answer started.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamClient } from '../../src/adapters/http-client.ts';
import { isGatewayError } from '../../src/errors/gateway-error.ts';

const CHUNK = Buffer.alloc(64 * 1024, 'x');
const CHUNKS = 400; // 25 MB: far more than loopback socket buffers can hold, whatever their autotuning
const state = { flushed: 0, closedEarly: 0, finished: 0 };
let server: http.Server;
let base = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    const url = req.url ?? '';
    if (url === '/small') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      setTimeout(() => res.end('data: 2\n\n'), 10);
      return;
    }
    if (url === '/error') {
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end('{"error":{"code":"limit_requests","message":"slow down"}}');
      return;
    }
    if (url === '/broken') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    // /big: CHUNKS × 64 KB as fast as the socket takes them; `flushed` counts what reached the kernel
    state.flushed = 0;
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.on('close', () => (res.writableFinished ? state.finished++ : state.closedEarly++));
    let i = 0;
    const pump = () => {
      while (i < CHUNKS) {
        i++;
        if (!res.write(CHUNK, () => void (state.flushed += CHUNK.length))) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
const client = new UpstreamClient();
afterAll(async () => {
  server.closeAllConnections(); // a failed test may leave a paused stream open; the pool would wait for it
  await client.close();
  await new Promise<void>((r) => server.close(() => r()));
});

const get = (path: string, signal?: AbortSignal) =>
  client.requestStream({ method: 'GET', baseUrl: base, path, ...(signal ? { signal } : {}) });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pushes a body into an array; `hold` says which chunk numbers answer false (hold the upstream back). */
function collect(res: Awaited<ReturnType<typeof get>>, hold: (n: number) => boolean = () => false) {
  const got = { chunks: 0, bytes: 0, ended: false, error: null as unknown, text: '' };
  const flow = res.push({
    data(c) {
      got.chunks++;
      got.bytes += c.length;
      if (got.text.length < 64) got.text += c.toString();
      return !hold(got.chunks);
    },
    end: () => void (got.ended = true),
    error: (e) => void (got.error = e),
  });
  return { got, flow };
}

describe('requestStream', () => {
  it('yields the body in order and completely; text() reads an error answer whole', async () => {
    const res = await get('/small');
    expect(res.statusCode).toBe(200);
    let text = '';
    for await (const c of res.body) text += c.toString();
    expect(text).toBe('data: 1\n\ndata: 2\n\n');
    const err = await get('/error');
    expect(err.statusCode).toBe(429);
    expect(JSON.parse(await err.text())).toMatchObject({ error: { code: 'limit_requests' } });
  });

  it('a consumer that does not read holds the upstream back (the socket is paused), and then gets every byte', async () => {
    const res = await get('/big');
    await sleep(400);
    const total = CHUNKS * CHUNK.length;
    expect(state.flushed).toBeLessThan(total / 2); // the server is waiting for 'drain'
    let got = 0;
    for await (const c of res.body) got += c.length;
    expect(got).toBe(total);
  });

  it('stopping early aborts the upstream request', async () => {
    const before = state.closedEarly;
    const res = await get('/big');
    for await (const _c of res.body) break;
    for (let i = 0; i < 100 && state.closedEarly === before; i++) await sleep(10);
    expect(state.closedEarly).toBe(before + 1);
  });

  it('an abort signal stops it; a connection cut mid-body is thrown to the reader; no server is a GatewayError', async () => {
    const ac = new AbortController();
    const res = await get('/big', ac.signal);
    const it = res.body[Symbol.asyncIterator]();
    await it.next();
    ac.abort();
    await expect(
      (async () => {
        for (;;) if ((await it.next()).done) return;
      })(),
    ).rejects.toThrow();

    const broken = await get('/broken');
    await expect(
      (async () => {
        for await (const _c of broken.body) void _c;
      })(),
    ).rejects.toThrow();

    const unreachable = await client.requestStream({ method: 'GET', baseUrl: 'http://127.0.0.1:9', path: '/' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isGatewayError(unreachable) && unreachable.code).toBe('upstream_unreachable');
  });

  it('push: every read handed over in order, then the end', async () => {
    const res = await get('/small');
    await sleep(30); // the whole body arrived before the consumer: it is handed over at once
    const { got } = collect(res);
    expect(got.text).toBe('data: 1\n\ndata: 2\n\n');
    expect(got.ended).toBe(true);
  });

  it('push: a consumer that answers false holds the upstream back until resume, then gets every byte', async () => {
    const res = await get('/big');
    const { got, flow } = collect(res, (n) => n === 1);
    await sleep(400);
    const total = CHUNKS * CHUNK.length;
    expect(got.chunks).toBe(1);
    expect(state.flushed).toBeLessThan(total / 2); // the server is waiting for 'drain'
    flow.resume();
    for (let i = 0; i < 500 && !got.ended; i++) await sleep(10);
    expect(got.ended).toBe(true);
    expect(got.bytes).toBe(total);
  });

  it('push: abort stops the upstream request (no end follows); a cut is handed over as an error', async () => {
    const before = state.closedEarly;
    const res = await get('/big');
    const { got, flow } = collect(res);
    flow.abort();
    for (let i = 0; i < 100 && state.closedEarly === before; i++) await sleep(10);
    expect(state.closedEarly).toBe(before + 1);
    expect(got.ended).toBe(false);

    const broken = collect(await get('/broken')).got;
    for (let i = 0; i < 100 && broken.error === null; i++) await sleep(10);
    expect(broken.error).toBeInstanceOf(Error);
    expect(broken.text).toBe('data: 1\n\n');
    expect(broken.ended).toBe(false);
  });
});
