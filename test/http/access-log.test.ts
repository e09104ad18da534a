import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { makeLogger } from '../../src/runtime/logger.ts';
import { registerSecret } from '../../src/errors/redact.ts';
import { accessLogger, type AccessLine } from '../../src/http/access-log.ts';

function capture(level = 'info') {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString('utf8'));
      cb();
    },
  });
  return { lines, logger: makeLogger(level, stream) };
}

const line = (over: Partial<AccessLine> = {}): AccessLine => ({
  requestId: 'req_0123456789abcdef0123456789abcdef',
  method: 'POST',
  path: '/v1/chat/completions',
  status: 200,
  latencyMs: 1.25,
  client: '203.0.113.7',
  tokenId: 'tok_abc',
  model: 'qwx3.7-plus',
  errorCode: null,
  upstreamRequestId: 'chatcmpl-1',
  upstreamError: null,
  ...over,
});

/** What the generic pino call (a request child logger) writes for the same fields. */
function viaPino(a: AccessLine): Record<string, unknown> {
  const c = capture();
  c.logger.child({ request_id: a.requestId }).info(
    {
      method: a.method,
      path: a.path,
      status: a.status,
      latency_ms: a.latencyMs,
      client: a.client,
      token_id: a.tokenId,
      model: a.model,
      error_code: a.errorCode ?? undefined,
      upstream_request_id: a.upstreamRequestId ?? undefined,
      upstream_error: a.upstreamError ?? undefined,
    },
    'request',
  );
  return JSON.parse(c.lines[0]!) as Record<string, unknown>;
}

describe('access line', () => {
  it('is the line pino writes for the same fields (same keys, order and values), one line per call', () => {
    for (const a of [
      line(),
      line({
        tokenId: undefined,
        model: null,
        status: 401,
        errorCode: 'invalid_token',
        upstreamRequestId: null,
        client: '::1',
      }),
      line({
        status: 400,
        errorCode: 'upstream_invalid_request',
        upstreamError: 'HTTP 400 1201: model_name \'kling-video-o1\' is "odd"',
      }),
      line({ path: '/v1/odd "path"\\x', model: 'm\u00e9', client: 'fe80::1%eth0' }),
    ]) {
      const c = capture();
      accessLogger(c.logger)(a);
      expect(c.lines).toHaveLength(1);
      expect(c.lines[0]!.endsWith('}\n')).toBe(true);
      const ours = JSON.parse(c.lines[0]!) as Record<string, unknown>;
      const theirs = viaPino(a);
      expect(typeof ours.time).toBe('number');
      expect(Math.abs((ours.time as number) - (theirs.time as number))).toBeLessThan(60_000);
      delete ours.time;
      delete theirs.time;
      expect(Object.keys(ours)).toEqual(Object.keys(theirs));
      expect(ours).toEqual(theirs);
    }
  });

  it('scrubs credentials like every other log line', () => {
    const c = capture();
    accessLogger(c.logger)(line({ path: '/v1/x/sk-abcdefghijklmnop', upstreamRequestId: 'Bearer abcdefghijklmnop' }));
    expect(c.lines[0]).not.toContain('sk-abcdefghijklmnop');
    expect(c.lines[0]).not.toContain('abcdefghijklmnop');
  });

  it('a path or model seen before is scrubbed again once a new secret is registered (their scrubbed forms are reused until then)', () => {
    const c = capture();
    const log = accessLogger(c.logger);
    const a = line({ model: 'model-late-secret-0042', path: '/v1/late-secret-0042' });
    log(a);
    log(a);
    expect(c.lines[1]).toContain('model-late-secret-0042');
    registerSecret('late-secret-0042');
    log(a);
    expect(c.lines[2]).not.toContain('late-secret-0042');
    expect(JSON.parse(c.lines[2]!)).toMatchObject({ model: 'model-[redacted]', path: '/v1/[redacted]' });
  });

  it('scrubs a registered secret and credential patterns in every outside value, and stays valid JSON whatever a value holds', () => {
    registerSecret('upstream-key-for-access-test');
    const c = capture();
    accessLogger(c.logger)(
      line({
        model: 'xupstream-key-for-access-testx',
        upstreamRequestId: 'id sk-abcdefghijklmnop eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijk',
        path: '/v1/p?k=upstream-key-for-access-test',
        requestId: 'req_"odd\\',
        errorCode: 'code with space',
        client: '"forged" sk-abcdefghijklmnop',
      }),
    );
    const text = c.lines[0]!;
    expect(text).not.toContain('upstream-key-for-access-test');
    expect(text).not.toContain('sk-abcdefghijklmnop');
    expect(text).not.toContain('eyJhbGciOiJIUzI1NiJ9');
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(parsed.request_id).toBe('req_"odd\\');
    expect(parsed.error_code).toBe('code with space');
    expect(parsed.model).toBe('x[redacted]x');
    expect(parsed.path).toBe('/v1/p?k=[redacted]');
    expect(parsed.client).toBe('"forged" [redacted-key]');
  });

  it('a client and token repeated line after line keep their own values, and one that is not plain is scrubbed each time', () => {
    const c = capture();
    const log = accessLogger(c.logger);
    const forged = '"x" late-client-secret-0077';
    const seq: Array<[string, string]> = [
      ['203.0.113.7', 'tok_a'],
      ['203.0.113.7', 'tok_a'],
      ['203.0.113.8', 'tok_b'],
      [forged, 'tok_b'],
      [forged, 'tok_a'],
    ];
    for (const [client, tokenId] of seq) log(line({ client, tokenId }));
    registerSecret('late-client-secret-0077');
    log(line({ client: forged, tokenId: 'tok_a' }));
    log(line({ client: '203.0.113.7', tokenId: 'tok_a' }));
    const got = c.lines.map((l) => JSON.parse(l) as { client: string; token_id: string });
    expect(got.map((g) => [g.client, g.token_id])).toEqual([
      ...seq,
      ['"x" [redacted]', 'tok_a'],
      ['203.0.113.7', 'tok_a'],
    ]);
  });

  it('writes nothing when info is disabled', () => {
    const c = capture('warn');
    accessLogger(c.logger)(line());
    expect(c.lines).toHaveLength(0);
  });
});

describe('number text of the access line', () => {
  it('the line carries the latency and time as numbers JSON reads back exactly', () => {
    for (const latencyMs of [0, 0.07, 3.2, 12.34, 250, 61234.5]) {
      const c = capture();
      const before = Date.now();
      accessLogger(c.logger)(line({ latencyMs }));
      const parsed = JSON.parse(c.lines[0]!) as { latency_ms: number; time: number };
      expect(parsed.latency_ms).toBe(latencyMs);
      expect(parsed.time).toBeGreaterThanOrEqual(before);
      expect(parsed.time).toBeLessThanOrEqual(Date.now());
    }
  });
});
