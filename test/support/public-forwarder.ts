// A gateway's public address known before it starts (an OpenID issuer must know the redirect address first): a TCP
// forwarder listening now, pointed at the gateway's port once it is up.
import { createConnection, createServer, type Socket } from 'node:net';

export interface PublicForwarder {
  /** `http://127.0.0.1:<port>`: the address to give as TOLLWAY_PUBLIC_URL. */
  url: string;
  /** Forward to this port from now on. */
  pointAt(port: number): void;
  close(): Promise<void>;
}

export async function startPublicForwarder(): Promise<PublicForwarder> {
  let target = 0;
  const sockets = new Set<Socket>();
  const front = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: target });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(front.address() as { port: number }).port}`,
    pointAt: (port) => {
      target = port;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => front.close(() => r()));
    },
  };
}
