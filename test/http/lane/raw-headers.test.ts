// The lane's request headers read from node's raw list must be what node's own headers object says.
import { createServer, IncomingMessage, type IncomingHttpHeaders } from 'node:http';
import { connect, Socket, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { laneHeaders } from '../../../src/http/lane/raw-headers.ts';

/** node's headers object for a raw list, filled the way node's HTTP parser fills it (_addHeaderLines). */
function nodeHeaders(raw: string[]) {
  const m = new IncomingMessage(new Socket()) as IncomingMessage & { _addHeaderLines(h: string[], n: number): void };
  m._addHeaderLines(raw, raw.length);
  return m.headers;
}

function agree(raw: string[]): void {
  const n = nodeHeaders(raw);
  const l = laneHeaders(raw);
  expect(l).toEqual({
    authorization: n.authorization,
    apiKey: n['x-api-key'],
    contentLength: n['content-length'],
    contentType: n['content-type'],
    transferEncoding: n['transfer-encoding'],
    forwardedFor: n['x-forwarded-for'],
    origin: n.origin,
    host: n.host !== undefined,
  });
}

describe('laneHeaders', () => {
  it('reads the five headers in any case, as node does', () => {
    agree(['Host', 'x', 'Authorization', 'Bearer a', 'Content-Type', 'application/json', 'Content-Length', '12']);
    agree([
      'AUTHORIZATION',
      'Bearer a',
      'X-Api-Key',
      'k',
      'content-type',
      'text/plain',
      'Transfer-Encoding',
      'chunked',
    ]);
    agree(['user-agent', 'u', 'x-stainless-os', 'Linux']);
  });

  it('repeated headers: first Authorization, Content-Type and Content-Length; x-api-key, Transfer-Encoding and X-Forwarded-For joined', () => {
    agree([
      'authorization',
      'Bearer first',
      'Authorization',
      'Bearer second',
      'content-type',
      'a/b',
      'Content-Type',
      'c/d',
      'content-length',
      '1',
      'content-length',
      '2',
    ]);
    agree(['x-api-key', 'k1', 'X-API-KEY', 'k2', 'transfer-encoding', 'gzip', 'Transfer-Encoding', 'chunked']);
    agree(['X-Forwarded-For', '203.0.113.9, 10.0.0.2', 'x-forwarded-for', '10.0.0.3']);
  });

  it('names of the right length that differ are not taken', () => {
    agree([
      'authorizatiom',
      'Bearer a',
      'x-api-kez',
      'k',
      'content-lengtH',
      '5',
      'content-typ3',
      'x',
      'transfer-encodinG',
      'chunked',
    ]);
    expect(laneHeaders(['authorizatio\u0000', 'x', 'x-api-ke\u00ff', 'y']).authorization).toBeUndefined();
  });

  it('past the 1000 headers node reads, nothing counts: a credential sent after them is ignored as node ignores it', async () => {
    const seen = await new Promise<{ raw: string[]; headers: IncomingHttpHeaders }>((resolve, reject) => {
      const server = createServer((req, res) => {
        resolve({ raw: req.rawHeaders, headers: req.headers });
        res.end();
        server.close();
      });
      server.listen(0, '127.0.0.1', () => {
        const filler = Array.from({ length: 1005 }, (_, i) => `x-f${i}: 1\r\n`).join('');
        const s = connect((server.address() as AddressInfo).port, '127.0.0.1', () => {
          s.end(
            `GET / HTTP/1.1\r\nHost: x\r\n${filler}Authorization: Bearer late\r\nContent-Type: application/json\r\n\r\n`,
          );
        });
        s.on('error', reject);
        s.resume();
      });
    });
    expect(seen.raw).toContain('Bearer late');
    expect(seen.headers.authorization).toBeUndefined();
    const l = laneHeaders(seen.raw);
    expect(l.authorization).toBeUndefined();
    expect(l.contentType).toBeUndefined();
  });
});
