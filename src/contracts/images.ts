// Image generation and edit requests: JSON or multipart (where every field is a
// string) become one typed ImageRequest, with a specific error code for every bad field.
import type { ModelEntry } from '../catalogue/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { literalHostReason } from '../net/address-policy.ts';
import { isObject, type JsonObject } from '../json/json.ts';

export type ImageMode = 'generate' | 'edit';
export type ResponseFormat = 'url' | 'b64_json';

export interface ImageSize {
  width: number;
  height: number;
}

export interface ImageRequest {
  mode: ImageMode;
  prompt: string;
  /** Absent: the upstream default (2048×2048 for generation; the last input's aspect for edits). */
  size?: ImageSize;
  n: number;
  responseFormat: ResponseFormat;
  /** Edit inputs: public http(s) URLs or data URIs (multipart uploads are converted to data URIs). */
  images: string[];
  negativePrompt?: string;
  seed?: number;
  watermark?: boolean;
  promptExtend?: boolean;
}

export const MAX_PROMPT_CHARS = 4000;
export const DEFAULT_MAX_N = 6;
const MIN_PIXELS = 512 * 512;
const MAX_PIXELS = 2048 * 2048;
const MAX_SEED = 2_147_483_647;

/** `<width>x<height>` → pixels; the pixel-area rule of the qwx-image-2.0 series and edit-plus. `auto` = default. */
export function parseSize(v: unknown): ImageSize | undefined {
  if (v === undefined || v === null || v === 'auto') return undefined;
  const m = typeof v === 'string' ? /^\s*(\d{1,5})\s*[xX]\s*(\d{1,5})\s*$/.exec(v) : null;
  if (!m)
    throw new GatewayError(
      'invalid_size',
      'size must be a string of the form <width>x<height>, for example 1024x1024',
      { param: 'size' },
    );
  const width = Number(m[1]);
  const height = Number(m[2]);
  const px = width * height;
  if (width === 0 || height === 0 || px < MIN_PIXELS || px > MAX_PIXELS) {
    throw new GatewayError(
      'invalid_size',
      `size ${width}x${height} is out of range: width×height must be between 512×512 (${MIN_PIXELS}) and 2048×2048 (${MAX_PIXELS}) pixels`,
      { param: 'size' },
    );
  }
  return { width, height };
}

/** The upstream's own size format. */
export const upstreamSize = (s: ImageSize) => `${s.width}*${s.height}`;

/** A JSON integer or a decimal-integer string (multipart sends every field as text). */
function intLike(v: unknown): number | null {
  if (typeof v === 'number') return Number.isInteger(v) ? v : null;
  if (typeof v === 'string' && /^\s*-?\d{1,12}\s*$/.test(v)) return Number(v);
  return null;
}

export function parseN(v: unknown, max: number): number {
  if (v === undefined || v === null) return 1;
  const n = intLike(v);
  if (n === null || n < 1 || n > max) {
    throw new GatewayError('invalid_n', `n must be an integer between 1 and ${max}, got ${JSON.stringify(v)}`, {
      param: 'n',
    });
  }
  return n;
}

function parseFormat(v: unknown): ResponseFormat {
  if (v === undefined || v === null) return 'url';
  if (v === 'url' || v === 'b64_json') return v;
  throw new GatewayError('invalid_parameter', 'response_format must be url or b64_json', { param: 'response_format' });
}

function parseBool(v: unknown, key: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new GatewayError('invalid_parameter', `${key} must be a boolean`, { param: key });
}

function parseSeed(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = intLike(v);
  if (n === null || n < 0 || n > MAX_SEED)
    throw new GatewayError('invalid_seed', `seed must be an integer between 0 and ${MAX_SEED}`, { param: 'seed' });
  return n;
}

function parsePrompt(v: unknown): string {
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
    throw new GatewayError('missing_parameter', 'prompt is required', { param: 'prompt' });
  }
  if (typeof v !== 'string')
    throw new GatewayError('invalid_parameter', 'prompt must be a string', { param: 'prompt' });
  if (v.length > MAX_PROMPT_CHARS)
    throw new GatewayError('invalid_parameter', `prompt must be at most ${MAX_PROMPT_CHARS} characters`, {
      param: 'prompt',
    });
  return v;
}

const DATA_URI = /^data:image\/(png|jpeg|jpg|webp|bmp|gif|tiff);base64,[A-Za-z0-9+/=]+$/i;

/** One edit input: a public http(s) URL (or an image data URI). Local paths and other schemes are refused. */
export function checkImageRef(v: string, param: string): string {
  const s = v.trim();
  if (DATA_URI.test(s)) return s;
  let u: URL | null = null;
  try {
    u = new URL(s);
  } catch {
    u = null;
  }
  if (!u || (u.protocol !== 'https:' && u.protocol !== 'http:')) {
    throw new GatewayError(
      'invalid_reference',
      `${param} must be a publicly reachable http(s) image URL (or upload the file as multipart)`,
      { param },
    );
  }
  const why = literalHostReason(u);
  if (why)
    throw new GatewayError(
      'invalid_reference',
      `${param} must be a publicly reachable http(s) image URL (not a ${why})`,
      { param },
    );
  return s;
}

/** JSON `images: [{image_url}]` (also `{image_url: {url}}` and plain strings, as chat-style clients send). */
export function parseJsonImages(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v))
    throw new GatewayError('invalid_reference', 'images must be an array of objects with image_url', {
      param: 'images',
    });
  return v.map((item, i) => {
    const param = `images[${i}].image_url`;
    let url: unknown = item;
    if (isObject(item)) url = isObject(item.image_url) ? item.image_url.url : item.image_url;
    if (typeof url !== 'string' || url.trim() === '')
      throw new GatewayError('invalid_reference', `${param} must be a non-empty URL string`, { param });
    return checkImageRef(url, param);
  });
}

/** Rules that depend on the model: what it can do, how many outputs and inputs it takes. */
export function checkModelFor(mode: ImageMode, entry: ModelEntry, publicName: string): void {
  const isImage = entry.kind === 'image' || entry.kind === 'image-edit';
  if (!isImage) {
    throw new GatewayError(
      'model_not_supported',
      `The model '${publicName}' is not an image model; use qwx-image-2.0, qwx-image-2.0-pro or qwx-image-edit-plus`,
      { param: 'model' },
    );
  }
  if (mode === 'generate' && !entry.capabilities.imageGenerate) {
    throw new GatewayError(
      'model_not_supported',
      `The model '${publicName}' is an image-edit model and cannot generate images from text; use POST /v1/images/edits with input images, or a generation model such as qwx-image-2.0`,
      { param: 'model' },
    );
  }
  if (mode === 'edit' && !entry.capabilities.imageEdit) {
    throw new GatewayError(
      'model_not_supported',
      `The model '${publicName}' is a generation-only model and cannot edit images; use qwx-image-2.0, qwx-image-2.0-pro or qwx-image-edit-plus`,
      { param: 'model' },
    );
  }
}

export function checkImageCount(images: string[], entry: ModelEntry, publicName: string): void {
  const max = entry.capabilities.maxEditImages ?? 3;
  if (images.length === 0) {
    throw new GatewayError(
      'missing_parameter',
      'An edit needs at least one input image: images[].image_url (JSON) or image / image[] files (multipart)',
      {
        param: 'images',
      },
    );
  }
  if (images.length > max) {
    throw new GatewayError(
      'too_many_images',
      `The model '${publicName}' accepts at most ${max} input images per edit, got ${images.length}`,
      {
        param: 'images',
      },
    );
  }
}

/** Fields shared by generation and edit (JSON values or multipart strings). */
export function parseCommon(o: JsonObject, mode: ImageMode, entry: ModelEntry, images: string[]): ImageRequest {
  if (o.mask !== undefined && o.mask !== null)
    throw new GatewayError('invalid_parameter', 'mask is not supported; describe the change in the prompt', {
      param: 'mask',
    });
  const req: ImageRequest = {
    mode,
    prompt: parsePrompt(o.prompt),
    n: parseN(o.n, entry.capabilities.maxN ?? DEFAULT_MAX_N),
    responseFormat: parseFormat(o.response_format),
    images,
  };
  const size = parseSize(o.size);
  if (size) req.size = size;
  if (o.negative_prompt !== undefined && o.negative_prompt !== null) {
    if (typeof o.negative_prompt !== 'string')
      throw new GatewayError('invalid_parameter', 'negative_prompt must be a string', { param: 'negative_prompt' });
    req.negativePrompt = o.negative_prompt;
  }
  const seed = parseSeed(o.seed);
  if (seed !== undefined) req.seed = seed;
  const watermark = parseBool(o.watermark, 'watermark');
  if (watermark !== undefined) req.watermark = watermark;
  const promptExtend = parseBool(o.prompt_extend, 'prompt_extend');
  if (promptExtend !== undefined) req.promptExtend = promptExtend;
  return req;
}

/** Image type from the file's first bytes (clients often send application/octet-stream). */
export function sniffImageType(data: Buffer): string | null {
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  if (
    data.length >= 12 &&
    data.subarray(0, 4).toString('ascii') === 'RIFF' &&
    data.subarray(8, 12).toString('ascii') === 'WEBP'
  )
    return 'image/webp';
  if (data.length >= 6 && /^GIF8[79]a$/.test(data.subarray(0, 6).toString('ascii'))) return 'image/gif';
  if (data.length >= 2 && data[0] === 0x42 && data[1] === 0x4d) return 'image/bmp';
  return null;
}

/** An uploaded file → the data URI the upstream accepts in an {image} part. */
export function uploadToDataUri(file: { data: Buffer; filename: string }, index: number): string {
  const type = sniffImageType(file.data);
  if (!type) {
    throw new GatewayError(
      'invalid_reference',
      `image file ${index + 1} (${file.filename || 'unnamed'}) is not a PNG, JPEG, WEBP, GIF or BMP image`,
      {
        param: 'image',
      },
    );
  }
  return `data:${type};base64,${file.data.toString('base64')}`;
}
