// POST /v1/videos: shape + domain rules (contract §2.5, §7, §8). Turns a JSON body, or the flattened
// multipart fields the official openai SDK sends, into a checked VideoSpec with the reference media
// already mapped to the upstream roles of the model (first_frame, last_frame, first_clip,
// reference_image, reference_video, video).
import type { VideoRules } from '../catalogue/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { VideoTier } from '../metering/types.ts';
import { isObject, type JsonObject } from './fields.ts';

export type MediaType = 'first_frame' | 'last_frame' | 'first_clip' | 'reference_image' | 'reference_video' | 'video';
export interface Media {
  type: MediaType;
  url: string;
}

export interface VideoSpec {
  prompt: string | undefined;
  /** Requested seconds, or null when absent (the model's default applies). */
  seconds: number | null;
  /** The tier asked for or implied (model default when absent). */
  resolution: VideoTier;
  resolutionGiven: boolean;
  seed: number | null;
  ratio: string | null;
  /** The OpenAI-style size string echoed back, when given. */
  size: string | null;
  media: Media[];
}

export const RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4'] as const;
const MAX_PROMPT = 5000;
const SEED_MAX = 2147483647;

const bad = (code: 'invalid_duration' | 'invalid_resolution' | 'invalid_seed' | 'seed_not_supported' | 'invalid_reference' | 'invalid_parameter' | 'invalid_size' | 'missing_parameter', message: string, param: string) =>
  new GatewayError(code, message, { param });

/** Multipart field-name segments that would reach an object's prototype. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Multipart fields arrive flattened the way the SDK's form encoder writes them:
 * `input_reference[image_url]`, `references[video][]` (read as `references[video]` with an array value),
 * `input_reference[]`. Rebuild the nested object so JSON and multipart share one validator.
 */
export function unflattenFields(fields: Record<string, string | string[]>): JsonObject {
  const out: JsonObject = {};
  for (const [rawKey, value] of Object.entries(fields)) {
    const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(rawKey);
    if (!m) continue;
    const path = [m[1]!, ...[...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1]!)];
    // `__proto__[x]` would walk into Object.prototype and change it for every request the process serves.
    if (path.some((k) => UNSAFE_KEYS.has(k))) throw new GatewayError('invalid_parameter', `Field name '${rawKey}' is not allowed`, { param: rawKey });
    setPath(out, path, value);
  }
  return out;
}

function setPath(target: JsonObject, path: string[], value: string | string[]): void {
  let cur: JsonObject = target;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i]!;
    const nextKey = path[i + 1]!;
    if (nextKey === '') {
      // `a[][image_url]` (array of objects): one object per value.
      const rest = path.slice(i + 2);
      const values = Array.isArray(value) ? value : [value];
      const arr: unknown[] = [];
      for (const v of values) {
        if (rest.length === 0) arr.push(v);
        else {
          const o: JsonObject = {};
          setPath(o, rest, v);
          arr.push(o);
        }
      }
      cur[k] = arr;
      return;
    }
    const existing = cur[k];
    if (!isObject(existing)) cur[k] = {};
    cur = cur[k] as JsonObject;
  }
  cur[path[path.length - 1]!] = value;
}

/** Multipart numbers are strings by nature: accept a plain decimal string there, nothing else. */
function numberField(v: unknown, multipart: boolean): unknown {
  if (multipart && typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim())) return Number(v.trim());
  return v;
}

function readSeconds(body: JsonObject, rules: VideoRules, isHhx: boolean, multipart: boolean): number | null {
  // The SDK calls it `seconds`; `duration` is accepted as the upstream-style synonym.
  const key = body.seconds !== undefined && body.seconds !== null ? 'seconds' : 'duration';
  let v = body[key];
  if (v === undefined || v === null) return null;
  // OpenAI's own enum is the strings "4" / "8" / "12": accept a decimal string in JSON as well.
  if (typeof v === 'string' && /^\d+$/.test(v.trim())) v = Number(v.trim());
  v = numberField(v, multipart);
  const min = Math.max(2, rules.minSeconds, isHhx ? 3 : 2);
  const max = Math.min(15, rules.maxSeconds);
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw bad('invalid_duration', `${key} must be an integer number of seconds between ${min} and ${max} for this model`, key);
  }
  return v;
}

function readResolution(body: JsonObject): VideoTier | null {
  const v = body.resolution;
  if (v === undefined || v === null) return null;
  if (v === '720p' || v === '720P') return '720p';
  if (v === '1080p' || v === '1080P') return '1080p';
  throw bad('invalid_resolution', 'resolution must be 720p or 1080p', 'resolution');
}

function readSeed(body: JsonObject, rules: VideoRules, multipart: boolean): number | null {
  const raw = body.seed;
  if (raw === undefined || raw === null) return null;
  // JSON: a string like "42" is rejected. Multipart has only strings, so a decimal string is the number there.
  const v = numberField(raw, multipart);
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > SEED_MAX) {
    throw bad('invalid_seed', `seed must be a JSON integer between 0 and ${SEED_MAX}`, 'seed');
  }
  if (!rules.seed) throw bad('seed_not_supported', 'This model does not support a fixed seed; remove seed', 'seed');
  return v;
}

const SIDE_MIN = 128;
const SIDE_MAX = 4096;

/** `WxH` (OpenAI) → tier and ratio. */
function readSize(body: JsonObject): { size: string; tier: VideoTier; ratio: string | null } | null {
  const v = body.size;
  if (v === undefined || v === null) return null;
  // Exactly as echoed back: no surrounding space.
  const m = typeof v === 'string' ? /^(\d{2,5})[x*](\d{2,5})$/.exec(v) : null;
  if (!m) throw bad('invalid_size', 'size must look like 1280x720', 'size');
  const w = Number(m[1]);
  const h = Number(m[2]);
  if (w < SIDE_MIN || h < SIDE_MIN || w > SIDE_MAX || h > SIDE_MAX) throw bad('invalid_size', `size must be between ${SIDE_MIN} and ${SIDE_MAX} pixels on each side`, 'size');
  const tier: VideoTier = Math.min(w, h) >= 1080 ? '1080p' : '720p';
  const g = gcd(w, h);
  const r = `${w / g}:${h / g}`;
  return { size: v as string, tier, ratio: (RATIOS as readonly string[]).includes(r) ? r : null };
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

function readRatio(body: JsonObject): string | null {
  const v = body.ratio ?? body.aspect_ratio;
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || !(RATIOS as readonly string[]).includes(v)) throw bad('invalid_parameter', `ratio must be one of ${RATIOS.join(', ')}`, 'ratio');
  return v;
}

export function validateVideoRequest(body: JsonObject, rules: VideoRules, model: string, opts: { multipart: boolean }): VideoSpec {
  const isHhx = model.startsWith('hhx');
  const promptRaw = body.prompt;
  if (promptRaw !== undefined && promptRaw !== null && typeof promptRaw !== 'string') throw bad('invalid_parameter', 'prompt must be a string', 'prompt');
  const prompt = typeof promptRaw === 'string' && promptRaw.trim() !== '' ? promptRaw : undefined;
  if (prompt && prompt.length > MAX_PROMPT) throw bad('invalid_parameter', `prompt must be at most ${MAX_PROMPT} characters`, 'prompt');
  const needsPrompt = rules.refs === 'none' || rules.refs === 'reference-images' || rules.refs === 'wan-r2v';
  if (needsPrompt && !prompt) throw bad('missing_parameter', 'prompt is required for this model', 'prompt');

  const seconds = readSeconds(body, rules, isHhx, opts.multipart);
  const resolution = readResolution(body);
  const seed = readSeed(body, rules, opts.multipart);
  const size = readSize(body);
  const ratio = readRatio(body) ?? size?.ratio ?? null;
  const media = mapReferences(body, rules, model);
  return {
    prompt,
    seconds,
    resolution: resolution ?? size?.tier ?? rules.defaultResolution,
    resolutionGiven: resolution !== null || size !== null,
    seed,
    ratio: rules.ratio ? ratio : null,
    size: size?.size ?? null,
    media,
  };
}

// ---- references -------------------------------------------------------------------------------

interface Ref {
  kind: 'image' | 'video';
  url: string;
  field: string;
}

const VIDEO_EXT = /\.(mp4|mov)$/i;

function httpUrl(raw: string, field: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw bad('invalid_reference', `${field} must be a public http(s) URL`, field);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw bad('invalid_reference', `${field} must be a public http(s) URL (uploads and data: URLs are not supported)`, field);
  return u;
}

function videoRef(raw: unknown, field: string): Ref {
  const url = typeof raw === 'string' ? raw : isObject(raw) ? (raw.video_url ?? raw.url) : undefined;
  if (typeof url !== 'string' || url === '') throw bad('invalid_reference', `${field} must be a video URL`, field);
  const u = httpUrl(url, field);
  if (!VIDEO_EXT.test(u.pathname)) throw bad('invalid_reference', `${field} must be a video URL ending in .mp4 or .mov`, field);
  return { kind: 'video', url, field };
}

/** A string (image or video by extension), `{image_url}` or `{video_url}`. */
function anyRef(raw: unknown, field: string): Ref {
  if (typeof raw === 'string') {
    const u = httpUrl(raw, field);
    return { kind: VIDEO_EXT.test(u.pathname) ? 'video' : 'image', url: raw, field };
  }
  if (isObject(raw)) {
    if (raw.video_url !== undefined) return videoRef(raw, field);
    const img = raw.image_url;
    const url = typeof img === 'string' ? img : isObject(img) && typeof img.url === 'string' ? img.url : undefined;
    if (url === undefined || url === '') throw bad('invalid_reference', `${field} must be an image URL, {image_url} or a video URL`, field);
    httpUrl(url, field);
    return { kind: 'image', url, field };
  }
  throw bad('invalid_reference', `${field} must be an image URL, {image_url} or a video URL`, field);
}

function listOf(raw: unknown, field: string): Ref[] {
  if (raw === undefined || raw === null) return [];
  if (Array.isArray(raw)) return raw.map((x, i) => anyRef(x, `${field}[${i}]`));
  return [anyRef(raw, field)];
}

function collect(body: JsonObject): { input: Ref[]; inputImage: Ref[]; videos: Ref[] } {
  const input = listOf(body.input_reference, 'input_reference');
  const inputImage = listOf(body.input_image, 'input_image');
  let videos: Ref[] = [];
  const refs = body.references;
  if (refs !== undefined && refs !== null) {
    if (!isObject(refs)) throw bad('invalid_reference', 'references must be an object like {"video": ["https://…/a.mp4"]}', 'references');
    for (const k of Object.keys(refs)) if (k !== 'video') throw bad('invalid_reference', `references.${k} is not supported; use references.video`, `references.${k}`);
    const v = refs.video;
    if (v !== undefined && v !== null) {
      const arr = Array.isArray(v) ? v : [v];
      videos = arr.map((x, i) => videoRef(x, `references.video[${i}]`));
    }
  }
  return { input, inputImage, videos };
}

function onlyImages(refs: Ref[], model: string): void {
  const v = refs.find((r) => r.kind !== 'image');
  if (v) throw bad('invalid_reference', `${v.field}: ${model} takes image references only`, v.field);
}

function none(refs: Ref[], field: string, model: string): void {
  if (refs.length > 0) throw bad('invalid_reference', `${field} is not accepted by ${model}`, field);
}

/** The contract's reference mapping table, model by model. */
export function mapReferences(body: JsonObject, rules: VideoRules, model: string): Media[] {
  const { input, inputImage, videos } = collect(body);
  const m = (type: MediaType) => (r: Ref): Media => ({ type, url: r.url });
  switch (rules.refs) {
    case 'none':
      none(input, 'input_reference', model);
      none(inputImage, 'input_image', model);
      none(videos, 'references.video', model);
      return [];
    case 'first-frame': {
      none(videos, 'references.video', model);
      if (input.length > 0 && inputImage.length > 0) throw bad('invalid_reference', 'Send either input_reference or input_image, not both', 'input_image');
      const refs = input.length > 0 ? input : inputImage;
      const field = input.length > 0 ? 'input_reference' : 'input_image';
      if (refs.length === 0) throw bad('invalid_reference', `${model} needs one first-frame image in input_reference (or input_image)`, 'input_reference');
      if (refs.length > 1) throw bad('invalid_reference', `${model} takes exactly one first-frame image`, field);
      onlyImages(refs, model);
      return refs.map(m('first_frame'));
    }
    case 'reference-images': {
      none(videos, 'references.video', model);
      none(inputImage, 'input_image', model);
      const max = rules.maxReferenceImages ?? 9;
      if (input.length === 0) throw bad('invalid_reference', `${model} needs 1 to ${max} reference images in input_reference`, 'input_reference');
      if (input.length > max) throw bad('invalid_reference', `${model} takes at most ${max} reference images in input_reference, got ${input.length}`, 'input_reference');
      onlyImages(input, model);
      return input.map(m('reference_image'));
    }
    case 'wan-i2v': {
      none(inputImage, 'input_image', model);
      none(videos, 'references.video', model);
      if (input.length === 0) throw bad('invalid_reference', `${model} needs an image or video URL in input_reference`, 'input_reference');
      const vids = input.filter((r) => r.kind === 'video');
      const imgs = input.filter((r) => r.kind === 'image');
      if (vids.length > 1) throw bad('invalid_reference', `${model} takes at most one video (the first clip)`, vids[1]!.field);
      // First video → first_clip; first image → first_frame; later images → last_frame. With a first
      // clip the clip is the opening, so an image can only be the closing frame (last_frame).
      const out: Media[] = vids.map(m('first_clip'));
      imgs.forEach((r, i) => out.push({ type: i === 0 && vids.length === 0 ? 'first_frame' : 'last_frame', url: r.url }));
      const lastFrames = out.filter((x) => x.type === 'last_frame').length;
      if (lastFrames > 1) throw bad('invalid_reference', `${model} takes a first frame (or first clip) and at most one last frame`, 'input_reference');
      return out;
    }
    case 'wan-r2v': {
      none(inputImage, 'input_image', model);
      onlyImages(input, model);
      const out = [...videos.map(m('reference_video')), ...input.map(m('reference_image'))];
      if (out.length === 0) throw bad('invalid_reference', `${model} needs references.video[] and/or input_reference images`, 'references.video');
      if (out.length > 5) throw bad('invalid_reference', `${model} takes at most 5 references in all`, 'references.video');
      return out;
    }
    case 'hhx-edit':
    case 'wan-edit': {
      none(inputImage, 'input_image', model);
      const srcVideos = [...videos, ...input.filter((r) => r.kind === 'video')];
      const imgs = input.filter((r) => r.kind === 'image');
      if (srcVideos.length === 0) throw bad('invalid_reference', `${model} needs the source video in references.video[]`, 'references.video');
      if (srcVideos.length > 1) throw bad('invalid_reference', `${model} edits exactly one source video`, srcVideos[1]!.field);
      const maxImgs = rules.refs === 'hhx-edit' ? 5 : 4;
      if (imgs.length > maxImgs) throw bad('invalid_reference', `${model} takes at most ${maxImgs} reference images`, 'input_reference');
      return [...srcVideos.map(m('video')), ...imgs.map(m('reference_image'))];
    }
  }
}
