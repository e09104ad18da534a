import { createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { UpstreamClient } from '../../src/adapters/http-client.ts';
import { networkError } from '../../src/adapters/network-errors.ts';
import { errors as undiciErrors } from 'undici';

describe('upstream client transport errors', () => {
  it('a refused connection is upstream_unreachable (certainly not sent)', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    await new Promise<void>((r) => srv.close(() => r()));
    const c = new UpstreamClient();
    await expect(
      c.request({ method: 'POST', baseUrl: `http://127.0.0.1:${port}`, path: '/x', body: '{}' }),
    ).rejects.toMatchObject({
      code: 'upstream_unreachable',
    });
    await c.close();
  });

  it('a reset after the request was sent is upstream_error (may have been processed), never reachability', async () => {
    const srv = createServer((s) => s.once('data', () => s.destroy()));
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    const c = new UpstreamClient();
    await expect(
      c.request({ method: 'POST', baseUrl: `http://127.0.0.1:${port}`, path: '/x', body: '{}' }),
    ).rejects.toMatchObject({ code: 'upstream_error' });
    await c.close();
    await new Promise<void>((r) => srv.close(() => r()));
  });
});

describe('requestText (whole answers without a body stream) maps failures like request', () => {
  const listen = async (onConn: (s: Socket) => void) => {
    const srv = createServer(onConn);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    return { srv, base: `http://127.0.0.1:${(srv.address() as { port: number }).port}` };
  };
  const close = (srv: ReturnType<typeof createServer>) => new Promise<void>((r) => srv.close(() => r()));

  it('returns status, headers and the whole body, across several TCP writes and a UTF-8 sequence split between them', async () => {
    const body = Buffer.from('{"a":"é€😀"}', 'utf8');
    const { srv, base } = await listen((s) =>
      s.once('data', () => {
        s.write(
          `HTTP/1.1 201 Created\r\ncontent-type: application/json\r\nx-request-id: rid-1\r\ncontent-length: ${body.length}\r\n\r\n`,
        );
        s.write(body.subarray(0, 8));
        setTimeout(() => s.end(body.subarray(8)), 20);
      }),
    );
    const c = new UpstreamClient();
    const r = await c.requestText({ method: 'POST', baseUrl: base, path: '/x', body: '{}' });
    expect(r).toMatchObject({ statusCode: 201, text: '{"a":"é€😀"}' });
    expect(r.headers['x-request-id']).toBe('rid-1');
    await c.close();
    await close(srv);
  });

  it('header() reads one header from the raw list as the headers object would: any case, the first of repeats, null when absent', async () => {
    const { srv, base } = await listen((s) =>
      s.once('data', () =>
        s.end(
          'HTTP/1.1 200 OK\r\nX-Request-Ix: near-miss\r\nX-REQUEST-ID: first\r\nx-request-id: second\r\nRequest-Id: r-9\r\ncontent-length: 2\r\n\r\n{}',
        ),
      ),
    );
    const c = new UpstreamClient();
    const r = await c.requestText({ method: 'POST', baseUrl: base, path: '/x', body: '{}' });
    expect(r.header('x-request-id')).toBe('first');
    expect(r.header('request-id')).toBe('r-9');
    expect(r.header('x-request-ix')).toBe('near-miss');
    expect(r.header('x-trace-id')).toBeNull();
    // The object (built on first use) agrees: names lower-cased, repeats as an array in order.
    expect(r.headers['x-request-id']).toEqual(['first', 'second']);
    expect(r.headers['request-id']).toBe('r-9');
    expect(r.headers).toBe(r.headers);
    await c.close();
    await close(srv);
  });

  it('refused → upstream_unreachable; reset after send → upstream_error', async () => {
    const { srv, base } = await listen(() => undefined);
    await close(srv);
    const c = new UpstreamClient();
    await expect(c.requestText({ method: 'POST', baseUrl: base, path: '/x', body: '{}' })).rejects.toMatchObject({
      code: 'upstream_unreachable',
    });
    const reset = await listen((s) => s.once('data', () => s.destroy()));
    await expect(c.requestText({ method: 'POST', baseUrl: reset.base, path: '/x', body: '{}' })).rejects.toMatchObject({
      code: 'upstream_error',
    });
    await c.close();
    await close(reset.srv);
  });

  it('no headers in time → upstream_timeout; an aborted signal → upstream_error (aborted)', async () => {
    const held: Socket[] = [];
    const { srv, base } = await listen((s) => void held.push(s)); // accepts, never answers
    const c = new UpstreamClient({ connectMs: 1000, headersMs: 150, bodyIdleMs: 1000 });
    await expect(c.requestText({ method: 'POST', baseUrl: base, path: '/x', body: '{}' })).rejects.toMatchObject({
      code: 'upstream_timeout',
    });
    const ac = new AbortController();
    const p = c.requestText({
      method: 'POST',
      baseUrl: base,
      path: '/y',
      body: '{}',
      signal: ac.signal,
      timeouts: { headersMs: 5000 },
    });
    setTimeout(() => ac.abort(), 30);
    await expect(p).rejects.toMatchObject({ code: 'upstream_error', message: 'The upstream request was aborted' });
    for (const s of held) s.destroy();
    await c.close();
    await close(srv);
  });

  it('a body that stalls → upstream_timeout; the limit restarts with each chunk, so a slow but steady body completes', async () => {
    const held: Socket[] = [];
    const stall = await listen((s) =>
      s.once('data', () => {
        held.push(s);
        s.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n{"a":');
      }),
    );
    const steady = await listen((s) =>
      s.once('data', () => {
        s.write('HTTP/1.1 200 OK\r\ncontent-length: 8\r\n\r\n');
        // 8 bytes, one every 100 ms: 800 ms in all, never 300 ms without a byte.
        let i = 0;
        const t = setInterval(() => {
          s.write('12345678'[i]!);
          if (++i === 8) clearInterval(t);
        }, 100);
      }),
    );
    const c = new UpstreamClient({ connectMs: 1000, headersMs: 1000, bodyIdleMs: 300 });
    await expect(c.requestText({ method: 'POST', baseUrl: stall.base, path: '/x', body: '{}' })).rejects.toMatchObject({
      code: 'upstream_timeout',
    });
    await expect(
      c.requestText({ method: 'POST', baseUrl: steady.base, path: '/x', body: '{}' }),
    ).resolves.toMatchObject({ text: '12345678' });
    for (const s of held) s.destroy();
    await c.close();
    await close(stall.srv);
    await close(steady.srv);
  });

  it('a stream: no headers in time, or a body that stalls mid-way, fail as timeouts', async () => {
    const held: Socket[] = [];
    const silent = await listen((s) => void held.push(s));
    const stall = await listen((s) =>
      s.once('data', () => {
        held.push(s);
        s.write(
          'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n6\r\ndata: \r\n',
        );
      }),
    );
    const c = new UpstreamClient({ connectMs: 1000, headersMs: 200, bodyIdleMs: 200 });
    await expect(
      c.requestStream({ method: 'POST', baseUrl: silent.base, path: '/x', body: '{}' }),
    ).rejects.toMatchObject({ code: 'upstream_timeout' });
    const res = await c.requestStream({ method: 'POST', baseUrl: stall.base, path: '/x', body: '{}' });
    const read = async () => {
      for await (const _ of res.body) void _;
    };
    await expect(read()).rejects.toThrow(/timeout/i);
    for (const s of held) s.destroy();
    await c.close();
    await close(silent.srv);
    await close(stall.srv);
  });
});

describe('transport failures as gateway errors', () => {
  it("an abort through the caller's signal is the caller's (its client left); a timeout is the upstream's", () => {
    expect(networkError(new undiciErrors.RequestAbortedError())).toMatchObject({
      code: 'upstream_error',
      callerAborted: true,
      mayHaveRun: true,
    });
    expect(networkError(new undiciErrors.HeadersTimeoutError())).toMatchObject({
      code: 'upstream_timeout',
      callerAborted: false,
    });
    expect(networkError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toMatchObject({
      callerAborted: false,
    });
  });
});
