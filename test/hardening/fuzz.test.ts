// Property-based bad-input fuzzing at every contract path: never a 500, never a hang, always the
// family's error shape with the request id, never a key, JWT, upstream host or stack trace.
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { useHarness } from '../support/harness.ts';

const POST_PATHS = [
  '/v1/chat/completions',
  '/v1/responses',
  '/v1/messages',
  '/v1/embeddings',
  '/v1/images/generations',
  '/v1/images/edits',
  '/v1/videos',
  '/vidx/v1/videos/text2video',
  '/vidx/v1/videos/multi-elements/init-selection',
  '/vidx/v1/videos/multi-elements/add-selection',
  '/vidx/v1/videos/multi-elements/delete-selection',
  '/vidx/v1/videos/multi-elements/clear-selection',
  '/vidx/v1/videos/multi-elements/preview-selection',
  '/vidx/v1/videos/multi-elements',
  '/vidx/v1/videos/omni-video',
];
const GET_PATHS = [
  '/v1/models',
  '/v1/videos/vid_doesnotexist',
  '/v1/videos/vid_doesnotexist/content',
  '/vidx/v1/videos/text2video/tsk_nope',
  '/vidx/v1/videos/text2video',
  '/vidx/v1/videos/multi-elements/tsk_nope',
  '/vidx/v1/videos/multi-elements',
];

const MODELS = [
  'qwx3.7-plus',
  'qwx3-vl-plus',
  'text-embedding-v4',
  'qwx-image-2.0',
  'qwx-image-edit-plus',
  'hhx-1.1-t2v',
  'wnx2.7-i2v',
  'vidx-v1',
  'vidx-v1-6',
  'vidx-v3-omni',
  'nope',
];

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);
const SIM_HOST = /127\.0\.0\.1:\d+/;
const UPSTREAM_ADDRESS: RegExp[] = [SIM_HOST];
const FORBIDDEN = [
  /at [\w.<>]+ \(.*:\d+:\d+\)/,
  /node_modules/,
  /aliyuncs\.com/,
  /klingai\.com/,
  SIM_HOST,
  /eyJ[A-Za-z0-9_-]{5,}\./,
  new RegExp(DEFAULT_SIM_KEYS.dashscopeApiKey),
  new RegExp(DEFAULT_SIM_KEYS.klingSecretKey),
];

const t = useHarness({ env: { TOLLWAY_BODY_LIMIT: String(256 * 1024) } });

const fieldValue = fc.oneof(
  fc.constantFrom(...MODELS),
  fc.string(),
  // Any code unit: NUL (PostgreSQL refuses it in text), lone surrogates, control characters.
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string(), fc.integer(), fc.object()), { maxLength: 5 }),
  fc.object({ maxDepth: 3 }),
);
const KEYS = [
  'model',
  'model_name',
  'messages',
  'input',
  'prompt',
  'stream',
  'n',
  'size',
  'seconds',
  'resolution',
  'seed',
  'images',
  'image_list',
  'session_id',
  'points',
  'frame_index',
  'duration',
  'mode',
  'camera_control',
  'max_tokens',
  'input_reference',
  'references',
  'edit_mode',
  'video_url',
  'cfg_scale',
  'external_task_id',
  'response_format',
];
const plausibleBody = fc.dictionary(fc.constantFrom(...KEYS), fieldValue, { maxKeys: 8 });

/** A valid request per creation path; mutations start from these (the `x…` prompt is where bad bytes go). */
const VALID: Record<string, Record<string, unknown>> = {
  '/v1/chat/completions': { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'xhello' }] },
  '/v1/responses': {
    model: 'qwx3.7-plus',
    input: [{ role: 'user', content: [{ type: 'input_text', text: 'xhello' }] }],
  },
  '/v1/messages': { model: 'qwx3.7-plus', max_tokens: 16, messages: [{ role: 'user', content: 'xhello' }] },
  '/v1/embeddings': { model: 'text-embedding-v4', input: 'xhello' },
  '/v1/images/generations': { model: 'qwx-image-2.0', prompt: 'xcat', n: 1 },
  '/v1/images/edits': {
    model: 'qwx-image-edit-plus',
    prompt: 'xcat',
    images: [{ image_url: 'https://cdn.example.com/a.png' }],
  },
  '/v1/videos': { model: 'wnx2.7-t2v', prompt: 'xcat', seconds: 2 },
  '/vidx/v1/videos/text2video': { model_name: 'vidx-v1', prompt: 'xcat', duration: '5' },
  '/vidx/v1/videos/omni-video': { model_name: 'vidx-v3-omni', prompt: 'xcat' },
  '/vidx/v1/videos/multi-elements/init-selection': { video_url: 'https://cdn.example.com/xclip.mp4' },
};

type Body = Record<string, unknown>;
const mutation: fc.Arbitrary<(b: Body) => Body> = fc.oneof(
  fc.constantFrom(...KEYS).map((k) => (b: Body) => {
    const { [k]: _drop, ...rest } = b;
    return rest;
  }),
  fc.tuple(fc.constantFrom(...KEYS), fieldValue).map(([k, v]) => (b: Body) => ({ ...b, [k]: v })),
  fc.tuple(fc.string({ maxLength: 20 }), fieldValue).map(([k, v]) => (b: Body) => ({ ...b, [k]: v })),
  fc.constant((b: Body) =>
    Object.fromEntries(Object.entries(b).map(([k, v]) => [k, Array.isArray(v) ? v.concat(v) : v])),
  ),
  fc.constant((b: Body) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k.toUpperCase(), v]))),
  fc.constant((b: Body) => ({
    ...b,
    messages: [
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://169.254.169.254/latest/meta-data' } }] },
    ],
  })),
  // Deep nesting in a field no validator looks at (serialising the body again must not overflow the stack).
  fc.integer({ min: 200, max: 3000 }).map((d) => (b: Body) => ({ ...b, metadata: nested(d) })),
);

function nested(depth: number): unknown {
  let v: unknown = 0;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

type Case = {
  path: string;
  method: 'POST' | 'GET';
  body: Buffer | string | null;
  contentType: string | null;
  headers: Record<string, string>;
};

const bodyArb: fc.Arbitrary<Pick<Case, 'body' | 'contentType'>> = fc.oneof(
  plausibleBody.map((b) => ({ body: JSON.stringify(b), contentType: 'application/json' })),
  fc.jsonValue().map((b) => ({ body: JSON.stringify(b), contentType: 'application/json' })),
  fc.string().map((s) => ({ body: s, contentType: 'application/json' })),
  fc.uint8Array({ maxLength: 300 }).map((u) => ({ body: Buffer.from(u), contentType: 'application/json' })),
  fc
    .constantFrom(
      'text/plain',
      'application/xml',
      'multipart/form-data',
      'multipart/form-data; boundary=xyz',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
    )
    .chain((ct) => fc.string().map((s) => ({ body: s, contentType: ct }))),
  fc.constant({ body: null, contentType: null }),
  fc
    .integer({ min: 1000, max: 20000 })
    .map((d) => ({ body: '['.repeat(d) + ']'.repeat(d), contentType: 'application/json' })),
  fc.integer({ min: 300, max: 2000 }).map((d) => ({
    body: `{"model":"qwx3.7-plus","messages":${'['.repeat(d)}${']'.repeat(d)}}`,
    contentType: 'application/json',
  })),
);

const headerArb = fc.record({
  'x-weird': fc.string({ maxLength: 50 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
  accept: fc.constantFrom('*/*', 'text/event-stream', 'application/json', 'image/png'),
});

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
