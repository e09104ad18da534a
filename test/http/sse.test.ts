// The stream's client watch (src/http/sse.ts) is the upstream call's abort signal: against a real server and a
// real client, it aborts when the client leaves (not when the response finished), runs each listener once, and
// undici's own request() accepts it as a signal.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
async function serve(then: (w: ClientWatch, res: http.ServerResponse) => void): Promise<string> {
  const s = http.createServer((req, res) => {
    req.resume();
    then(new ClientWatch(res), res);
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
      client.request({ method: 'GET', baseUrl: upstream, path: '/', signal: w.signal }).then(
        (r) => r.body.text(),
        (e: unknown) => e,
      ).then((v) => (outcome = v), (e: unknown) => (outcome = e));
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
});
