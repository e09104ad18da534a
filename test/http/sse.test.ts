// The stream's client watch (src/http/sse.ts) is the upstream call's abort signal: against a real server and a
// real client, it aborts when the client leaves (not when the response finished), runs each listener once, and
// undici's own request() accepts it as a signal.
import http from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamClient } from '../../src/adapters/http-client.ts';
import { ClientWatch } from '../../src/http/sse.ts';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

/** A server whose handler gets a watch on each response; `then` decides how the response goes on. */
async function serve(then: (w: ClientWatch, res: http.ServerResponse) => void, stallMs = 60_000): Promise<string> {
  const s = http.createServer((req, res) => {
    req.resume();
    then(new ClientWatch(res, stallMs), res);
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
};

describe('ClientWatch', () => {
  it('aborts once when the client leaves: each listener runs once, a removed one not at all, a late one never', async () => {
    const seen: string[] = [];
    let watch: ClientWatch | null = null;
    const base = await serve((w, res) => {
      watch = w;
      res.writeHead(200).write('x');
      w.addEventListener('abort', () => seen.push('a'));
      const removed = () => seen.push('removed');
      w.addEventListener('abort', removed);
      w.addEventListener('abort', () => seen.push('b'));
      w.removeEventListener('abort', removed);
    });
    const ac = new AbortController();
    const res = await fetch(base, { signal: ac.signal });
    await res.body!.getReader().read();
    expect(watch!.gone).toBe(false);
    ac.abort();
    await until(() => watch!.gone);
    expect(watch!.aborted).toBe(true);
    expect(seen).toEqual(['a', 'b']);
    watch!.addEventListener('abort', () => seen.push('late'));
    expect(seen).toEqual(['a', 'b']);
  });

  it('a response that finished is not an abort', async () => {
    let watch: ClientWatch | null = null;
    let closed = false;
    const base = await serve((w, res) => {
      watch = w;
      w.addEventListener('abort', () => expect.fail('aborted'));
      res.on('close', () => (closed = true));
      res.end('done');
    });
    expect(await (await fetch(base)).text()).toBe('done');
    await until(() => closed);
    expect(watch!.gone).toBe(false);
  });

  it("stops an upstream call made with undici's request() when the client leaves", async () => {
    const upstream = await serve((_w, res) => res.writeHead(200).write('never ends'));
    const client = new UpstreamClient();
    let outcome: unknown = 'pending';
    const base = await serve((w, res) => {
      client
        .request({ method: 'GET', baseUrl: upstream, path: '/', signal: w.signal })
        .then(
          (r) => r.body.text(),
          (e: unknown) => e,
        )
        .then(
          (v) => (outcome = v),
          (e: unknown) => (outcome = e),
        );
      res.writeHead(200).write('x');
    });
    const ac = new AbortController();
    const res = await fetch(base, { signal: ac.signal });
    await res.body!.getReader().read();
    ac.abort();
    await until(() => outcome !== 'pending');
    expect(outcome).toBeInstanceOf(Error);
    await client.close();
  });

  /**
   * A stream writer as sse.ts's: 64 kB chunks while the socket takes them whole; when it does not, tell the watch
   * and go on at 'drain' — until the kernel's buffers are full too and no 'drain' comes (up to 64 MB).
   */
  const fillUntilFull = (w: ClientWatch, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = 'x'.repeat(65_536);
    let sent = 0;
    const more = () => {
      while (sent < 1024 && !res.destroyed) {
        sent++;
        if (!res.write(chunk)) {
          w.stalled();
          res.once('drain', more);
          return;
        }
      }
      if (!res.destroyed) res.end();
    };
    more();
  };

  it('a client that stays connected but takes no byte for the stall limit is cut: the watch aborts', async () => {
    let watch: ClientWatch | null = null;
    const base = await serve((w, res) => {
      watch = w;
      fillUntilFull(w, res);
    }, 300);
    const { port } = new URL(base);
    const sock = connect(Number(port), '127.0.0.1');
    sock.pause(); // connected, reading nothing
    sock.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    try {
      await until(() => watch !== null);
      await until(() => watch!.gone);
      expect(watch!.gone).toBe(true);
    } finally {
      sock.destroy();
    }
  });

  it('a slow client that takes the bytes within the stall limit is not cut', async () => {
    let watch: ClientWatch | null = null;
    let res: http.ServerResponse | null = null;
    const base = await serve((w, r) => {
      watch = w;
      res = r;
      fillUntilFull(w, r);
    }, 1_000);
    const body = (await fetch(base)).body!.getReader();
    await until(() => watch !== null);
    // Slow, but never silent for the limit: every chunk is taken in the end, and the watch never aborted.
    let bytes = 0;
    for (;;) {
      const { done, value } = await body.read();
      if (done) break;
      bytes += value.length;
      if (bytes % (8 * 65_536) < value.length) await new Promise((r) => setTimeout(r, 50));
    }
    expect(bytes).toBe(1024 * 65_536);
    expect(watch!.gone).toBe(false);
    expect(res!.writableFinished).toBe(true);
  });

  it('after the last write, a client that does not take it within the stall limit is cut, so the response ends', async () => {
    let res: http.ServerResponse | null = null;
    let closed = false;
    const base = await serve((w, r) => {
      res = r;
      r.on('close', () => (closed = true));
      r.writeHead(200, { 'content-type': 'text/event-stream' });
      // More than the client's side can hold (64 MB; a loopback receive buffer grows to 32 MB here), then the stream's
      // end: the last bytes wait in the response.
      const chunk = 'x'.repeat(65_536);
      for (let i = 0; i < 1024; i++) r.write(chunk);
      w.dispose();
      r.end();
      w.ended();
    }, 300);
    const { port } = new URL(base);
    const sock = connect(Number(port), '127.0.0.1');
    sock.pause();
    sock.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    try {
      await until(() => res !== null);
      await until(() => closed);
      expect(closed).toBe(true);
      expect(res!.destroyed).toBe(true);
    } finally {
      sock.destroy();
    }
  });
});
