import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { UpstreamClient } from '../../src/adapters/http-client.ts';

describe('upstream client transport errors', () => {
  it('a refused connection is upstream_unreachable (certainly not sent)', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    await new Promise<void>((r) => srv.close(() => r()));
    const c = new UpstreamClient();
    await expect(c.request({ method: 'POST', baseUrl: `http://127.0.0.1:${port}`, path: '/x', body: '{}' })).rejects.toMatchObject({ code: 'upstream_unreachable' });
    await c.close();
  });

  it('a reset after the request was sent is upstream_error (may have been processed), never reachability', async () => {
    const srv = createServer((s) => s.once('data', () => s.destroy()));
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    const c = new UpstreamClient();
    await expect(c.request({ method: 'POST', baseUrl: `http://127.0.0.1:${port}`, path: '/x', body: '{}' })).rejects.toMatchObject({ code: 'upstream_error' });
    await c.close();
    await new Promise<void>((r) => srv.close(() => r()));
  });
});
