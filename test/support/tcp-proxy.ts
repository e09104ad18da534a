// A TCP proxy in front of a real server (Redis in the tests): `cut()` closes every connection through it and refuses
// new ones, as the server going away does; `restore()` lets connections through again.
import { createConnection, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  /** `host:port` to connect to instead of the server. */
  readonly address: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function tcpProxy(host: string, port: number): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let down = false;
  const server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = createConnection({ host, port });
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port: own } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${own}`,
    cut: () => {
      down = true;
      for (const s of open) s.destroy();
    },
    restore: () => {
      down = false;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of open) s.destroy();
        server.close(() => r());
      }),
  };
}
