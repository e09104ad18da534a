// The inputs of the bad-input fuzzing (test/hardening/fuzz.test.ts): every contract path, the models, what an answer
// must never show, and the arbitraries of bodies, mutations of valid bodies and headers.
import fc from 'fast-check';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';

export const POST_PATHS = [
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
export const GET_PATHS = [
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

export const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);
const SIM_HOST = /127\.0\.0\.1:\d+/;
export const UPSTREAM_ADDRESS: RegExp[] = [SIM_HOST];
export const FORBIDDEN = [
  /at [\w.<>]+ \(.*:\d+:\d+\)/,
  /node_modules/,
  /aliyuncs\.com/,
  /klingai\.com/,
  SIM_HOST,
  /eyJ[A-Za-z0-9_-]{5,}\./,
  new RegExp(DEFAULT_SIM_KEYS.dashscopeApiKey),
  new RegExp(DEFAULT_SIM_KEYS.klingSecretKey),
];

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
export const VALID: Record<string, Record<string, unknown>> = {
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
export const mutation: fc.Arbitrary<(b: Body) => Body> = fc.oneof(
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

export type Case = {
  path: string;
  method: 'POST' | 'GET';
  body: Buffer | string | null;
  contentType: string | null;
  headers: Record<string, string>;
};

export const bodyArb: fc.Arbitrary<Pick<Case, 'body' | 'contentType'>> = fc.oneof(
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

export const headerArb = fc.record({
  'x-weird': fc.string({ maxLength: 50 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
  accept: fc.constantFrom('*/*', 'text/event-stream', 'application/json', 'image/png'),
});
