import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import { createSafeNet, type SafeNet } from '../../src/net/safe-fetch.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(handler: Handler): Promise<{ server: Server; origin: string; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { server, origin: `http://127.0.0.1:${port}`, port };
}

async function rejection(p: Promise<unknown>): Promise<GatewayError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof GatewayError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}

describe('safe fetch', () => {
  let net: SafeNet;
  let a: Awaited<ReturnType<typeof serve>>;
  let hits = 0;
  let stalled: IncomingMessage[] = [];

  beforeAll(async () => {
    // Fake DNS: evil.example.test points at loopback, meta.example.test at the metadata address.
    net = createSafeNet({
      resolve: async (h) => {
        if (h === 'evil.example.test') return [{ address: '127.0.0.1', family: 4 }];
        if (h === 'meta.example.test') return [{ address: '169.254.169.254', family: 4 }];
        if (h === 'mixed.example.test')
          return [
            { address: '8.8.8.8', family: 4 },
            { address: '10.0.0.7', family: 4 },
          ];
        // DNS answers in IPv6 clothing: 6to4, SIIT, NAT64 and Teredo forms of private and metadata addresses.
        const v6 = {
          '6to4.example.test': '2002:a00:7::1',
          'siit.example.test': '::ffff:0:7f00:1',
          'nat64.example.test': '64:ff9b::a9fe:a9fe',
          'teredo.example.test': '2001:0:4136:e378:8000:63bf:80ff:fffe',
        }[h];
        if (v6) return [{ address: v6, family: 6 }];
        throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    a = await serve((req, res) => {
      hits++;
      const u = new URL(req.url ?? '/', 'http://x');
      if (u.pathname === '/ok') return res.end('hello');
      if (u.pathname === '/big') return res.end(Buffer.alloc(5000, 1));
      if (u.pathname === '/big-chunked') {
        res.write(Buffer.alloc(600, 1));
        setTimeout(() => res.end(Buffer.alloc(600, 1)), 5);
        return;
      }
      if (u.pathname === '/stall') {
        stalled.push(req);
        return; // never answers
      }
      if (u.pathname === '/404') {
        res.statusCode = 404;
        return res.end('nope');
      }
      if (u.pathname === '/range') {
        res.statusCode = req.headers.range ? 206 : 200;
        res.setHeader('x-got-range', String(req.headers.range ?? ''));
        return res.end('partial');
      }
      if (u.pathname === '/hop') {
        const n = Number(u.searchParams.get('n') ?? '0');
        res.statusCode = 302;
        res.setHeader('location', n > 0 ? `/hop?n=${n - 1}` : '/ok');
        return res.end();
      }
      if (u.pathname === '/redirect') {
        res.statusCode = 302;
        res.setHeader('location', u.searchParams.get('to') ?? '/ok');
        return res.end();
      }
      res.statusCode = 500;
      res.end();
    });
  });

  afterAll(async () => {
    for (const r of stalled) r.socket.destroy();
    stalled = [];
    await net.close();
    await new Promise((r) => a.server.close(r));
  });

  const trusted = () => ({
    allowHosts: ['localhost', 'evil.example.test', 'meta.example.test', 'mixed.example.test'],
    trustedOrigins: [a.origin],
  });

  it('downloads from a trusted origin and follows a same-origin redirect', async () => {
    const r = await net.fetch(`${a.origin}/hop?n=1`, trusted());
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('hello');
    expect(r.finalUrl).toBe(`${a.origin}/ok`);
  });

  it('refuses a host whose DNS answer is loopback (real DNS: localhost)', async () => {
    const before = hits;
    const real = createSafeNet();
    const e = await rejection(real.fetch(`https://localhost:${a.port}/ok`, { allowHosts: ['localhost'] }));
    await real.close();
    expect(e.code).toBe('download_refused');
    expect(e.message).toMatch(/loopback/);
    expect(hits).toBe(before);
  });

  it('refuses hosts resolving to private, metadata, or mixed answers', async () => {
    const p = { allowHosts: ['evil.example.test', 'meta.example.test', 'mixed.example.test'] };
    expect((await rejection(net.fetch(`https://evil.example.test:${a.port}/ok`, p))).message).toMatch(/loopback/);
    expect((await rejection(net.fetch('https://meta.example.test/latest/meta-data', p))).message).toMatch(/metadata/);
    const mixed = await rejection(net.fetch('https://mixed.example.test/x', p));
    expect(mixed.code).toBe('download_refused');
    expect(mixed.message).toMatch(/private/);
  });

  it('refuses hosts whose IPv6 answers carry a private, loopback or metadata IPv4 address', async () => {
    const names = ['6to4.example.test', 'siit.example.test', 'nat64.example.test', 'teredo.example.test'];
    for (const name of names) {
      const e = await rejection(net.fetch(`https://${name}/x`, { allowHosts: names }));
      expect(e.code, name).toBe('download_refused');
      expect(e.message, name).toMatch(/(private|loopback|metadata) address/);
    }
  });

  it('allows private addresses only when allowPrivate is set', async () => {
    const r = await net.fetch(`http://evil.example.test:${a.port}/ok`, {
      allowHosts: ['evil.example.test'],
      allowPrivate: true,
    });
    expect(r.body.toString()).toBe('hello');
  });

  it('refuses a redirect to a forbidden address, an unlisted host, or plain http', async () => {
    const before = hits;
    const toLoopback = await rejection(
      net.fetch(`${a.origin}/redirect?to=${encodeURIComponent(`https://evil.example.test:${a.port}/ok`)}`, trusted()),
    );
    expect(toLoopback.code).toBe('download_refused');
    expect(toLoopback.message).toMatch(/loopback/);
    const toMeta = await rejection(
      net.fetch(`${a.origin}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data')}`, trusted()),
    );
    expect(toMeta.code).toBe('download_refused');
    const toOther = await rejection(
      net.fetch(`${a.origin}/redirect?to=${encodeURIComponent('https://attacker.example.org/x')}`, trusted()),
    );
    expect(toOther.message).toMatch(/allow-list/);
    const toHttp = await rejection(
      net.fetch(`${a.origin}/redirect?to=${encodeURIComponent(`http://localhost:${a.port}/ok`)}`, trusted()),
    );
    expect(toHttp.message).toMatch(/only https/);
    // Only the redirecting hops reached the server; the forbidden targets never did.
    expect(hits - before).toBe(4);
  });

  it('stops after 3 redirects', async () => {
    expect((await net.fetch(`${a.origin}/hop?n=2`, trusted())).body.toString()).toBe('hello');
    const e = await rejection(net.fetch(`${a.origin}/hop?n=3`, trusted()));
    expect(e.code).toBe('download_failed');
    expect(e.message).toMatch(/redirects/);
  });

  it('enforces the size cap by content-length and while streaming', async () => {
    const e1 = await rejection(net.fetch(`${a.origin}/big`, { ...trusted(), maxBytes: 1000 }));
    expect(e1.code).toBe('download_failed');
    expect(e1.message).toMatch(/1000-byte limit/);
    const e2 = await rejection(net.fetch(`${a.origin}/big-chunked`, { ...trusted(), maxBytes: 1000 }));
    expect(e2.message).toMatch(/1000-byte limit/);
    expect((await net.fetch(`${a.origin}/big`, { ...trusted(), maxBytes: 5000 })).body.length).toBe(5000);
  });

  it('times out a host that never answers', async () => {
    const e = await rejection(net.fetch(`${a.origin}/stall`, { ...trusted(), timeoutMs: 150 }));
    expect(e.code).toBe('download_failed');
    expect(e.message).toMatch(/in time/);
  });

  it('turns an HTTP error into download_failed', async () => {
    const e = await rejection(net.fetch(`${a.origin}/404`, trusted()));
    expect(e.code).toBe('download_failed');
    expect(e.message).toMatch(/HTTP 404/);
  });

  it('streams with caller headers (Range) and applies the same checks', async () => {
    const r = await net.stream(`${a.origin}/range`, { ...trusted(), headers: { range: 'bytes=0-3' } });
    expect(r.statusCode).toBe(206);
    expect(r.headers['x-got-range']).toBe('bytes=0-3');
    const chunks: Buffer[] = [];
    for await (const c of r.body) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('partial');
    const refusedStream = await rejection(
      net.stream(`https://evil.example.test:${a.port}/ok`, { allowHosts: ['evil.example.test'] }),
    );
    expect(refusedStream.code).toBe('download_refused');
    const big = await rejection(net.stream(`${a.origin}/big`, { ...trusted(), maxBytes: 100 }));
    expect(big.message).toMatch(/100-byte limit/);
  });
});
