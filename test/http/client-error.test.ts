// Requests node's HTTP parser refuses before any hook runs: the family's error shape, a request id, the connection
// closed — not the framework's own body (src/http/client-error.ts).
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type AErr, type BErr, RID } from '../support/error-shapes.ts';
import { useHarness } from '../support/harness.ts';

const t = useHarness();

/** Send raw bytes; the whole answer once the server closes the connection. */
function raw(bytes: string, url = t.h.url): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname, () => s.write(bytes));
    let text = '';
    s.setEncoding('latin1');
    s.on('data', (d: string) => (text += d));
    s.on('error', reject);
    s.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [line = '', ...rest] = head.split('\r\n');
      const headers = Object.fromEntries(
        rest.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(line.split(' ')[1]), headers, body });
    });
  });
}

describe('requests the HTTP parser refuses', () => {
  it.each([
    [
      'two different Content-Length values',
      'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    ],
    [
      'Content-Length and Transfer-Encoding together',
      'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    // Authenticated, so the body is read (an anonymous caller is answered 401 before it).
    [
      'a bad chunk size',
      'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer TOKEN\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    ],
    ['a request line without a leading slash', 'GET v1/models HTTP/1.1\r\nHost: x\r\n\r\n'],
  ])('%s: 400 in the family B shape with a request id, connection closed', async (_name, bytes) => {
    const r = await raw(bytes.replace('TOKEN', t.token));
    expect(r.status).toBe(400);
    expect(r.headers['x-gateway-request-id']).toMatch(RID);
    expect(r.headers.connection).toBe('close');
    const body = JSON.parse(r.body) as BErr;
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.request_id).toBe(r.headers['x-gateway-request-id']);
  });

  it('on a keep-alive connection whose earlier answer is complete: answered the same (400, request id, closed)', async () => {
    const u = new URL(t.h.url);
    const s = connect(Number(u.port), u.hostname);
    s.setEncoding('latin1');
    let text = '';
    const closed = new Promise<void>((r) => s.on('close', () => r()));
    s.on('data', (d: string) => (text += d));
    await new Promise<void>((r) => s.once('connect', () => r()));
    s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    for (let i = 0; i < 200 && !text.includes('{"status":"ok"}'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(text).toContain('HTTP/1.1 200');
    const first = text.length;
    s.write('FOO /v1/models HTTP/1.1\r\nHost: x\r\n\r\n');
    await closed;
    const second = text.slice(first);
    expect(second).toMatch(/^HTTP\/1\.1 400 /);
    const [head = '', body = ''] = second.split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`x-gateway-request-id: ${RID.source.replace(/^\^|\$$/g, '')}`));
    expect((JSON.parse(body) as BErr).error.code).toBe('invalid_request');
  });

  it("an Expect header other than 100-continue: 417 in the family shape with a request id (not node's bare answer)", async () => {
    const b = await raw(
      'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\nContent-Length: 2\r\n\r\n{}',
    );
    expect(b.status).toBe(417);
    expect(b.headers['x-gateway-request-id']).toMatch(RID);
    expect((JSON.parse(b.body) as BErr).error).toMatchObject({
      code: 'invalid_request',
      request_id: b.headers['x-gateway-request-id'],
    });
    const a = await raw(
      'POST /vidx/v1/videos/text2video HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}',
    );
    expect(a.status).toBe(417);
    expect((JSON.parse(a.body) as AErr).request_id).toBe(a.headers['x-gateway-request-id']);
  });

  it('CONNECT (a proxy tunnel): 405 with a request id, not a connection closed unanswered', async () => {
    const r = await raw('CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n');
    expect(r.status).toBe(405);
    expect(r.headers['x-gateway-request-id']).toMatch(RID);
    expect((JSON.parse(r.body) as BErr).error.code).toBe('method_not_allowed');
  });

  it('headers over the size limit: 431, family B shape', async () => {
    const r = await raw(`GET /v1/models?x=${'a'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(r.status).toBe(431);
    expect(r.headers['x-gateway-request-id']).toMatch(RID);
    expect((JSON.parse(r.body) as BErr).error.code).toBe('invalid_request');
  });

  it('a family A path: the vendor envelope', async () => {
    const r = await raw(
      'POST /vidx/v1/videos/text2video HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    );
    expect(r.status).toBe(400);
    const body = JSON.parse(r.body) as AErr;
    expect(body.code).toBe(1201);
    expect(body.request_id).toBe(r.headers['x-gateway-request-id']);
    expect(body.data).toBeNull();
  });
});

describe('an HTTP/1.1 request without a Host header', () => {
  it.each([
    [
      'the text lane',
      'POST /v1/chat/completions HTTP/1.1\r\nAuthorization: Bearer TOKEN\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
      'B',
    ],
    ['a framework route', 'GET /v1/models HTTP/1.1\r\nAuthorization: Bearer TOKEN\r\n\r\n', 'B'],
    ['family A', 'GET /vidx/v1/videos/text2video HTTP/1.1\r\nAuthorization: Bearer TOKEN\r\n\r\n', 'A'],
  ])(
    "%s: 400 in the family shape with a request id, connection closed (not node's bare 400)",
    async (_name, bytes, family) => {
      const r = await raw(bytes.replace('TOKEN', t.token));
      expect(r.status).toBe(400);
      expect(r.headers['x-gateway-request-id']).toMatch(RID);
      expect(r.headers['x-request-id']).toBe(r.headers['x-gateway-request-id']);
      expect(r.headers.connection).toBe('close');
      if (family === 'A') {
        const body = JSON.parse(r.body) as AErr;
        expect(body.code).toBe(1201);
        expect(body.request_id).toBe(r.headers['x-gateway-request-id']);
      } else {
        const body = JSON.parse(r.body) as BErr;
        expect(body.error.code).toBe('invalid_request');
        expect(body.error.message).toContain('Host');
        expect(body.error.request_id).toBe(r.headers['x-gateway-request-id']);
      }
    },
  );

  it('HTTP/1.0 needs none: served', async () => {
    const r = await raw(`GET /v1/models HTTP/1.0\r\nAuthorization: Bearer ${t.token}\r\n\r\n`);
    expect(r.status).toBe(200);
  });
});

describe("a request not received in time: 408 in the shape of its path's family", () => {
  const slow = useHarness({ env: { TOLLWAY_REQUEST_TIMEOUT_MS: '1000' } });

  /** Send `bytes` and nothing more: the server gives up on the rest. */
  const stalled = (bytes: string) => raw(bytes.replace('TOKEN', slow.token), slow.h.url);

  it('a late body on family A, /v1/messages and /v1 paths; late headers', async () => {
    const [aBody, aHead, messages, b] = await Promise.all([
      stalled(
        'POST /vidx/v1/videos/text2video HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer TOKEN\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
      ),
      stalled('POST /vidx/v1/videos/text2video HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer TOKEN\r\nContent-Ty'),
      stalled(
        'POST /v1/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer TOKEN\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
      ),
      stalled(
        'POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer TOKEN\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
      ),
    ]);
    for (const r of [aBody, aHead, messages, b]) {
      expect(r.status).toBe(408);
      expect(r.headers['x-gateway-request-id']).toMatch(RID);
    }
    for (const r of [aBody]) {
      const body = JSON.parse(r.body) as AErr;
      expect(body.code).toBe(1201);
      expect(body.request_id).toBe(r.headers['x-gateway-request-id']);
    }
    // Late headers: node's parser hands over no request line before they are complete, so the /v1 shape answers.
    expect((JSON.parse(aHead.body) as BErr).error.code).toBe('invalid_request');
    const m = JSON.parse(messages.body) as { type: string; error: { type: string } };
    expect(m.type).toBe('error');
    expect((JSON.parse(b.body) as BErr).error.code).toBe('invalid_request');
  });
});
