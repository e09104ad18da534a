// A client's callback endpoint: an HTTP server on 127.0.0.1 that records every request it gets.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hit {
  /** The request's path (and query). */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The status it was answered with. */
  answered: number;
}

export interface Receiver {
  /** Its address, with `path` appended. */
  url: string;
  hits: Hit[];
  close(): Promise<void>;
}

/** Answers 500 to the first `failFirst` requests, then 200. */
export async function startReceiver(opts: { failFirst?: number; path?: string } = {}): Promise<Receiver> {
  const hits: Hit[] = [];
  const srv: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const answered = hits.length < (opts.failFirst ?? 0) ? 500 : 200;
      hits.push({ url: req.url ?? '', headers: req.headers, body, answered });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}${opts.path ?? ''}`,
    hits,
    close: () => new Promise<void>((r) => srv.close(() => r())),
  };
}
