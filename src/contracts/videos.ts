// POST /v1/videos: shape and domain rules. Turns a JSON body (or the rebuilt multipart fields, form-fields.ts)
// into a checked VideoSpec with the reference media mapped to the model's upstream roles (video-references.ts).
import type { VideoRules } from '../catalogue/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { VideoTier } from '../metering/types.ts';
import type { JsonObject } from '../json/json.ts';
import { mapReferences, type Media, type MediaType } from './video-references.ts';

export type { Media, MediaType };

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

const bad = (
  code:
    | 'invalid_duration'
    | 'invalid_resolution'
    | 'invalid_seed'
    | 'seed_not_supported'
    | 'invalid_reference'
    | 'invalid_parameter'
    | 'invalid_size'
    | 'missing_parameter',
  message: string,
  param: string,
) => new GatewayError(code, message, { param });

/** Multipart field-name segments that would reach an object's prototype. */
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
    throw bad(
      'invalid_duration',
      `${key} must be an integer number of seconds between ${min} and ${max} for this model`,
      key,
    );
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
  if (w < SIDE_MIN || h < SIDE_MIN || w > SIDE_MAX || h > SIDE_MAX)
    throw bad('invalid_size', `size must be between ${SIDE_MIN} and ${SIDE_MAX} pixels on each side`, 'size');
  const tier: VideoTier = Math.min(w, h) >= 1080 ? '1080p' : '720p';
  const g = gcd(w, h);
  const r = `${w / g}:${h / g}`;
  return { size: v as string, tier, ratio: (RATIOS as readonly string[]).includes(r) ? r : null };
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

function readRatio(body: JsonObject): string | null {
  const v = body.ratio ?? body.aspect_ratio;
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || !(RATIOS as readonly string[]).includes(v))
    throw bad('invalid_parameter', `ratio must be one of ${RATIOS.join(', ')}`, 'ratio');
  return v;
}

export function validateVideoRequest(
  body: JsonObject,
  rules: VideoRules,
  model: string,
  opts: { multipart: boolean },
): VideoSpec {
  const isHhx = model.startsWith('hhx');
  const promptRaw = body.prompt;
  if (promptRaw !== undefined && promptRaw !== null && typeof promptRaw !== 'string')
    throw bad('invalid_parameter', 'prompt must be a string', 'prompt');
  const prompt = typeof promptRaw === 'string' && promptRaw.trim() !== '' ? promptRaw : undefined;
  if (prompt && prompt.length > MAX_PROMPT)
    throw bad('invalid_parameter', `prompt must be at most ${MAX_PROMPT} characters`, 'prompt');
  const needsPrompt = rules.refs === 'none' || rules.refs === 'reference-images' || rules.refs === 'wan-r2v';
  if (needsPrompt && !prompt) throw bad('missing_parameter', 'prompt is required for this model', 'prompt');

  const media = mapReferences(body, rules, model);
  const withVideo =
    rules.maxSecondsWithVideo !== undefined &&
    media.some((m) => m.type === 'reference_video' || m.type === 'video' || m.type === 'first_clip');
  const seconds = readSeconds(
    body,
    withVideo ? { ...rules, maxSeconds: Math.min(rules.maxSeconds, rules.maxSecondsWithVideo!) } : rules,
    isHhx,
    opts.multipart,
  );
  const resolution = readResolution(body);
  const seed = readSeed(body, rules, opts.multipart);
  const size = readSize(body);
  const ratio = readRatio(body) ?? size?.ratio ?? null;
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
