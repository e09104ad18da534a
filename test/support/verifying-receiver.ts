// An operator's alert receiver as the docs tell one to write it: an HTTP server on 127.0.0.1 that verifies each
// delivery's Standard Webhooks signature with the webhook's secret (the `standardwebhooks` package) and answers 200
// only when it holds, 401 otherwise. The secret is set once the webhook exists (it is shown at creation).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface VerifiedHit {
  headers: IncomingHttpHeaders;
  body: string;
  /** The verified payload; null when the signature did not hold. */
  verified: { type: string; data: Record<string, unknown> } | null;
  answered: number;
}

export interface VerifyingReceiver {
  url: string;
  hits: VerifiedHit[];
  /** The whsec_ secret deliveries must be signed with. */
  secret: string;
  close(): Promise<void>;
}

export async function startVerifyingReceiver(path = '/alerts'): Promise<VerifyingReceiver> {
  const rx: VerifyingReceiver = { url: '', hits: [], secret: '', close: async () => undefined };
  const srv: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      let verified: VerifiedHit['verified'] = null;
      try {
        verified = new Webhook(rx.secret).verify(
          body,
          req.headers as Record<string, string>,
        ) as VerifiedHit['verified'];
      } catch {
        verified = null;
      }
      const answered = verified ? 200 : 401;
      rx.hits.push({ headers: req.headers, body, verified, answered });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  rx.url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}${path}`;
  rx.close = () => new Promise<void>((r) => srv.close(() => r()));
  return rx;
}
