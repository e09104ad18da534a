// Property-based bad-input fuzzing at every contract path: never a 500, never a hang, always the
// family's error shape with the request id, never a key, JWT, upstream host or stack trace (the inputs:
// test/support/fuzz-inputs.ts).
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import {
  POST_PATHS,
  GET_PATHS,
  PROTOTYPE_NAMES,
  UPSTREAM_ADDRESS,
  FORBIDDEN,
  VALID,
  mutation,
  bodyArb,
  headerArb,
  type Case,
} from '../support/fuzz-inputs.ts';

const t = useHarness({ env: { TOLLWAY_BODY_LIMIT: String(256 * 1024) } });

/** Cases run per property (printed at the end). */
const ran = new Map<string, number>();
let current = '';
afterAll(() => {
  const total = [...ran.values()].reduce((a, b) => a + b, 0);
  console.log(`fuzz cases run: ${total} (${[...ran].map(([k, v]) => `${k}: ${v}`).join('; ')})`);
});

async function check(c: Case): Promise<void> {
  current = expect.getState().currentTestName ?? '';
  ran.set(current, (ran.get(current) ?? 0) + 1);
  const r = await request(t.h.url + c.path, {
    method: c.method,
    headers: {
      authorization: `Bearer ${t.token}`,
      ...(c.contentType ? { 'content-type': c.contentType } : {}),
      ...c.headers,
    },
    body: c.method === 'GET' ? null : c.body,
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
  });
  const text = await r.body.text();
  // The gateway runs in this process: a request that reached Object.prototype would show here.
  expect(Object.getOwnPropertyNames(Object.prototype), `${c.method} ${c.path} polluted Object.prototype`).toEqual(
    PROTOTYPE_NAMES,
  );
  const rid = r.headers['x-gateway-request-id'];
  expect(rid, `${c.method} ${c.path}`).toMatch(/^req_/);
  expect(r.statusCode, `${c.method} ${c.path} → ${text.slice(0, 300)}`).toBeLessThan(500);
  // A successful result carries the upstream's result URL (the simulator's address here) by design;
  // upstream addresses may never appear in an error.
  for (const re of FORBIDDEN)
    if (r.statusCode >= 400 || !UPSTREAM_ADDRESS.includes(re)) expect(text, `${c.path} leaked ${re}`).not.toMatch(re);
  if (r.statusCode >= 400) {
    const body = JSON.parse(text) as Record<string, unknown>;
    if (c.path.startsWith('/vidx/')) {
      expect(typeof body.code).toBe('number');
      expect(body.code).not.toBe(0);
      expect(body.request_id).toBe(rid);
      expect(body.data).toBeNull();
    } else {
      const err = body.error as Record<string, unknown>;
      expect(typeof err.code).toBe('string');
      expect(err.request_id).toBe(rid);
      expect(String(err.message)).toContain(String(rid));
    }
  }
}

describe('bad-input fuzzing at every contract path', () => {
  it('POST paths: random and mutated bodies, content types and headers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POST_PATHS), bodyArb, headerArb, async (path, b, headers) => {
        await check({ path, method: 'POST', ...b, headers });
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300), interruptAfterTimeLimit: 60_000 },
    );
  }, 120_000);

  it('GET paths: random query strings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...GET_PATHS),
        fc.dictionary(
          fc.constantFrom('pageNum', 'pageSize', 'x', 'limit'),
          fc.oneof(fc.string(), fc.integer().map(String)),
        ),
        async (path, q) => {
          const qs = new URLSearchParams(q).toString();
          await check({ path: qs ? `${path}?${qs}` : path, method: 'GET', body: null, contentType: null, headers: {} });
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150), interruptAfterTimeLimit: 30_000 },
    );
  }, 180_000);

  it('mutated valid bodies: fields dropped, retyped, duplicated and renamed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(VALID)),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        headerArb,
        async (path, muts, headers) => {
          let body: Record<string, unknown> = structuredClone(VALID[path]!);
          for (const m of muts) body = m(body);
          await check({ path, method: 'POST', body: JSON.stringify(body), contentType: 'application/json', headers });
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 200), interruptAfterTimeLimit: 45_000 },
    );
  }, 180_000);

  it('invalid UTF-8 inside otherwise valid JSON bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(VALID)),
        fc.uint8Array({ minLength: 1, maxLength: 8 }).map((u) => Buffer.from(u.map((b) => b | 0x80))),
        async (path, bad) => {
          const text = JSON.stringify(VALID[path]!);
          const at = text.indexOf('"x') + 1;
          const body = Buffer.concat([Buffer.from(text.slice(0, at)), bad, Buffer.from(text.slice(at))]);
          await check({ path, method: 'POST', body, contentType: 'application/json', headers: {} });
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 100), interruptAfterTimeLimit: 30_000 },
    );
  }, 180_000);

  it('random multipart bodies (fields, files, sizes up to past the limits) on the upload paths', async () => {
    const part = fc.record({
      name: fc.constantFrom(
        'model',
        'prompt',
        'image',
        'image[]',
        'mask',
        'n',
        'size',
        'seconds',
        'input_reference',
        'response_format',
        'x',
        'input_reference[image_url]',
        'references[video][]',
        '__proto__[stream]',
        'input_reference[__proto__][limit]',
        'constructor[prototype][stream]',
        'a[b][c][d]',
      ),
      file: fc.boolean(),
      value: fc.oneof(
        fc.constantFrom('qwx-image-edit-plus', 'wnx2.7-i2v', 'wnx2.7-t2v', '2', '720x1280'),
        fc.string({ maxLength: 40 }),
        fc.string({ unit: 'binary', maxLength: 8 }),
      ),
      size: fc.oneof(fc.integer({ min: 0, max: 2048 }), fc.constant(300 * 1024)),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/v1/images/edits', '/v1/videos'),
        fc.array(part, { maxLength: 6 }),
        async (path, parts) => {
          const boundary = `fuzzboundary${Math.random().toString(36).slice(2)}`;
          const chunks: Buffer[] = [];
          for (const p of parts) {
            chunks.push(
              Buffer.from(
                `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.file ? '; filename="f.png"\r\nContent-Type: image/png' : ''}\r\n\r\n`,
              ),
            );
            chunks.push(p.file ? Buffer.alloc(p.size, 7) : Buffer.from(p.value));
            chunks.push(Buffer.from('\r\n'));
          }
          chunks.push(Buffer.from(`--${boundary}--\r\n`));
          await check({
            path,
            method: 'POST',
            body: Buffer.concat(chunks),
            contentType: `multipart/form-data; boundary=${boundary}`,
            headers: {},
          });
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 100), interruptAfterTimeLimit: 30_000 },
    );
  }, 180_000);

  it('an oversized body is refused with 413 in the family shape', async () => {
    const big = JSON.stringify({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'x'.repeat(400 * 1024) }] });
    const r = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: t.token,
      body: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(413);
    const a = await t.h.fetch('/vidx/v1/videos/text2video', {
      method: 'POST',
      token: t.token,
      body: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(a.status).toBe(413);
    expect(((await a.json()) as { code: number }).code).not.toBe(0);
  });
});
