// Qwen-Image on the native multimodal-generation path (sync generation and editing), plus the
// result files the answers point at (`/results/img/<id>.png?Expires=…`, like the OSS signed URLs).
// Faults: `partial[:k]` (fewer images than n), `no-output` (200 with no image); status faults are generic.
// A `sim-result-gone:<k>` prompt marker makes the first k result files missing (404), for download tests.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { SimContext } from '../context.ts';
import { requestId, sendJson } from '../http-util.ts';
import type { SimRequest, SimRouter } from '../router.ts';
import { nativeError } from './errors.ts';
import { solidPng } from './images-png.ts';
import { registerMultimodalModelHandler } from './multimodal.ts';

export interface ImageModelRule {
  generate: boolean;
  edit: boolean;
  maxN: number;
  /** qwen-image/-plus/-max: only these sizes. */
  fixedSizes?: string[];
  defaultSize: string;
}

const FIXED = ['1664*928', '1472*1104', '1472*1140', '1328*1328', '1104*1472', '928*1664'];

export const IMAGE_MODELS: Record<string, ImageModelRule> = {
  'qwen-image': { generate: true, edit: false, maxN: 1, fixedSizes: FIXED, defaultSize: '1328*1328' },
  'qwen-image-plus': { generate: true, edit: false, maxN: 1, fixedSizes: FIXED, defaultSize: '1328*1328' },
  'qwen-image-max': { generate: true, edit: false, maxN: 1, fixedSizes: FIXED, defaultSize: '1328*1328' },
  'qwen-image-2.0': { generate: true, edit: true, maxN: 6, defaultSize: '2048*2048' },
  'qwen-image-2.0-pro': { generate: true, edit: true, maxN: 6, defaultSize: '2048*2048' },
  'qwen-image-edit': { generate: false, edit: true, maxN: 1, defaultSize: '1024*1024' },
  'qwen-image-edit-plus': { generate: false, edit: true, maxN: 6, defaultSize: '1024*1024' },
  'qwen-image-edit-max': { generate: false, edit: true, maxN: 6, defaultSize: '1024*1024' },
};

const MIN_PIXELS = 512 * 512;
const MAX_PIXELS = 2048 * 2048;

interface StoredImage {
  png: Buffer;
  expiresAt: number;
}

function store(ctx: SimContext): Map<string, StoredImage> {
  let m = ctx.state.get('dashscope-images') as Map<string, StoredImage> | undefined;
  if (!m) {
    m = new Map();
    ctx.state.set('dashscope-images', m);
  }
  return m;
}

/** Make one result file and return its signed-looking URL (`stored: false`: the URL 404s, as a lost OSS object). */
export function makeResultImage(ctx: SimContext, seed: string, stored = true): string {
  const id = randomUUID().replace(/-/g, '');
  const expiresAt = Date.now() + ctx.opts.resultTtlMs;
  const m = store(ctx);
  if (m.size > 2000) m.delete(m.keys().next().value!);
  if (stored) m.set(id, { png: solidPng(`${seed}:${id}`), expiresAt });
  const expires = Math.floor(expiresAt / 1000);
  return `${ctx.baseUrl}/results/img/${id}.png?Expires=${expires}&OSSAccessKeyId=SIM&Signature=${id.slice(0, 16)}`;
}

export function parseUpstreamSize(s: string, rule: ImageModelRule): { width: number; height: number } | string {
  const m = /^(\d{1,5})\*(\d{1,5})$/.exec(s);
  if (!m) return `size must look like W*H, got "${s}"`;
  const width = Number(m[1]);
  const height = Number(m[2]);
  if (rule.fixedSizes && !rule.fixedSizes.includes(s)) return `size must be one of ${rule.fixedSizes.join(', ')}`;
  if (!rule.fixedSizes && (width * height < MIN_PIXELS || width * height > MAX_PIXELS)) {
    return `The total pixels of size must be between ${MIN_PIXELS} and ${MAX_PIXELS}.`;
  }
  return { width, height };
}

const IMAGE_REF = /^(https?:\/\/\S+|data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+)$/i;

/** Validate `input.messages` for image models: one user message with 0–3 {image} parts and one {text}. */
function readContent(body: { input?: { messages?: unknown } }): { prompt: string; images: string[] } | string {
  const messages = body.input?.messages;
  if (!Array.isArray(messages) || messages.length !== 1) return 'input.messages must hold exactly one user message.';
  const msg = messages[0] as { role?: unknown; content?: unknown } | null;
  if (msg?.role !== 'user' || !Array.isArray(msg.content))
    return 'The message must have role "user" and a content array.';
  let prompt: string | undefined;
  const images: string[] = [];
  for (const part of msg.content as unknown[]) {
    const p = (part ?? {}) as { text?: unknown; image?: unknown };
    if (typeof p.text === 'string') {
      if (prompt !== undefined) return 'Only one text part is allowed.';
      prompt = p.text;
    } else if (typeof p.image === 'string') {
      if (!IMAGE_REF.test(p.image)) return 'The image must be a public http(s) URL or a base64 data URI.';
      images.push(p.image);
    } else return 'Each content part must be {"text"} or {"image"}.';
  }
  if (!prompt?.trim()) return 'The text part (prompt) is required.';
  if (images.length > 3) return 'At most 3 input images are supported.';
  return { prompt, images };
}

function producedCount(req: SimRequest, n: number): number {
  if (req.fault?.kind === 'no-output') return 0;
  if (req.fault?.kind === 'partial')
    return n <= 1 ? n : Math.max(1, Math.min(n - 1, req.fault.arg ?? Math.floor(n / 2)));
  return n;
}

async function handleImage(req: SimRequest, res: ServerResponse, ctx: SimContext): Promise<void> {
  // An image call reports no tokens: it counts none against the tokens per minute.
  req.settleTokens?.(0);
  const body = req.json as { model: string; input?: { messages?: unknown }; parameters?: Record<string, unknown> };
  const rule = IMAGE_MODELS[body.model];
  if (!rule) return nativeError(res, 400, 'InvalidParameter', 'Model not exist.');
  const content = readContent(body);
  if (typeof content === 'string') return nativeError(res, 400, 'InvalidParameter', content);
  if (content.images.length === 0 && !rule.generate)
    return nativeError(res, 400, 'InvalidParameter', `Model ${body.model} requires at least one input image.`);
  if (content.images.length > 0 && !rule.edit)
    return nativeError(res, 400, 'InvalidParameter', `Model ${body.model} does not accept input images.`);
  const params = body.parameters ?? {};
  const n = params.n ?? 1;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > rule.maxN) {
    return nativeError(res, 400, 'InvalidParameter', `n must be an integer between 1 and ${rule.maxN}.`);
  }
  const sizeRaw = params.size ?? rule.defaultSize;
  if (typeof sizeRaw !== 'string') return nativeError(res, 400, 'InvalidParameter', 'size must be a string.');
  const size = parseUpstreamSize(sizeRaw, rule);
  if (typeof size === 'string') return nativeError(res, 400, 'InvalidParameter', size);
  const produced = producedCount(req, n);
  // `sim-result-gone:<k>` in the prompt: the first k result URLs point at files that do not exist (download tests).
  const gone = Number(/sim-result-gone:(\d+)/.exec(content.prompt)?.[1] ?? 0);
  const parts = Array.from({ length: produced }, (_v, i) => ({
    image: makeResultImage(ctx, `${content.prompt}:${i}`, i >= gone),
  }));
  sendJson(res, 200, {
    output: { choices: [{ finish_reason: 'stop', message: { role: 'assistant', content: parts } }] },
    usage: { width: size.width, height: size.height, image_count: produced },
    request_id: requestId(),
  });
}

function ossError(res: ServerResponse, status: number, code: string, message: string): void {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>${requestId()}</RequestId></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) });
  res.end(xml);
}

export function registerImages(router: SimRouter, ctx: SimContext): void {
  registerMultimodalModelHandler('qwen-image', handleImage);
  router.on('GET', '/results/img/:file', (req, res) => {
    const id = /^([a-f0-9]{32})\.png$/.exec(req.params.file ?? '')?.[1];
    const img = id ? store(ctx).get(id) : undefined;
    if (!img) return ossError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
    const expires = Number(req.query.get('Expires') ?? NaN);
    if (!Number.isFinite(expires) || !req.query.get('Signature'))
      return ossError(res, 403, 'AccessDenied', 'Request signature is missing.');
    if (expires * 1000 < Date.now() || img.expiresAt < Date.now())
      return ossError(res, 403, 'AccessDenied', 'Request has expired.');
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': img.png.length });
    res.end(img.png);
  });
}
