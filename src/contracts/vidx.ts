// Family A (/vidx/v1/videos) request rules shared by text2video, multi-elements and omni-video.
// Every rejection is a catalogue code; on /vidx paths the renderer turns
// it into the vendor envelope (400 → 1201, model_not_found → 404/1203).
import { isIP } from 'node:net';
import { VIDX_FIELD_KEYS, VIDX_FIELDS, type VidxEndpoint } from '../catalogue/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { isObject, type JsonObject } from '../json/json.ts';

export const PROMPT_MAX = 2500;
export const EXTERNAL_ID_MAX = 200;
export const CALLBACK_URL_MAX = 2048;
export type Mode = 'std' | 'pro';

const bad = (
  message: string,
  param: string,
  code: 'invalid_parameter' | 'missing_parameter' | 'invalid_duration' = 'invalid_parameter',
) => new GatewayError(code, message, { param });

/** Characters as a person counts them (code points, so one emoji is one character). */
export const charLength = (s: string): number => [...s].length;

export function readPrompt(o: JsonObject, key = 'prompt', required = true): string | undefined {
  const v = o[key];
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
    if (required) throw bad(`${key} is required`, key, 'missing_parameter');
    return undefined;
  }
  if (typeof v !== 'string') throw bad(`${key} must be a string`, key);
  if (charLength(v) > PROMPT_MAX) throw bad(`${key} must be at most ${PROMPT_MAX} characters`, key);
  return v;
}

/**
 * A model-dependent field (mode, negative_prompt, cfg_scale, sound, camera_control) the model does not take on this
 * path (catalogue data) is refused, naming the field: before any hold or upstream call, never silently dropped.
 * `mode: "std"` is the contract's default, so sending it to a model without modes is the same request as omitting
 * it: accepted, and never forwarded (the body builders send `mode` only to models that take it).
 */
export function refuseUntakenFields(o: JsonObject, model: string, rules: VidxEndpoint): void {
  for (const f of VIDX_FIELDS) {
    if (rules.fields.includes(f)) continue;
    for (const k of VIDX_FIELD_KEYS[f]) {
      if (o[k] === undefined || o[k] === null) continue;
      // `std` is every text2video model's default: sent explicitly, it is the same request as omitted.
      if (k === 'mode' && o.mode === 'std') continue;
      const why = k === 'mode' ? ': it has no std/pro mode; omit the field or send std' : '; omit the field';
      throw bad(`${k} is not supported by ${model}${why}`, k);
    }
  }
}

export function readMode(o: JsonObject, def: Mode = 'std'): Mode {
  const v = o.mode;
  if (v === undefined || v === null) return def;
  if (v !== 'std' && v !== 'pro') throw bad('mode must be std or pro', 'mode');
  return v;
}

/**
 * `duration` is a string, as the vendor API takes it. A JSON number (5) is rejected rather than
 * coerced: the vendor rejects it too, and silently accepting it would hide client bugs.
 */
export function readDuration(o: JsonObject, allowed: readonly string[] = ['5', '10']): number {
  const v = o.duration;
  if (v === undefined || v === null) return 5;
  if (typeof v !== 'string')
    throw bad(
      `duration must be a string: one of ${allowed.map((a) => `"${a}"`).join(', ')}`,
      'duration',
      'invalid_duration',
    );
  if (!allowed.includes(v))
    throw bad(`duration must be one of ${allowed.map((a) => `"${a}"`).join(', ')}`, 'duration', 'invalid_duration');
  return Number(v);
}

export function readWatermark(o: JsonObject): { enabled?: boolean } | undefined {
  const v = o.watermark_info;
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw bad('watermark_info must be an object', 'watermark_info');
  if (v.enabled !== undefined && typeof v.enabled !== 'boolean')
    throw bad('watermark_info.enabled must be a boolean', 'watermark_info.enabled');
  return v.enabled === undefined ? {} : { enabled: v.enabled };
}

export function readExternalTaskId(o: JsonObject): string | undefined {
  const v = o.external_task_id;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.trim() === '')
    throw bad('external_task_id must be a non-empty string', 'external_task_id');
  if (v.length > EXTERNAL_ID_MAX)
    throw bad(`external_task_id must be at most ${EXTERNAL_ID_MAX} characters`, 'external_task_id');
  return v;
}

/** An absolute http(s) URL given in field `param` (callback_url, video_url), or invalid_parameter naming it. */
export function readHttpUrl(v: string, param: string): URL {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw bad(`${param} must be an absolute http(s) URL`, param);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw bad(`${param} must use http or https`, param);
  return u;
}

const LOCAL_NAMES =
  /^(localhost|localhost\.localdomain|ip6-localhost|ip6-loopback)$|\.localhost$|\.local$|\.internal$/i;

/**
 * `callback_url`: an absolute http(s) URL without credentials. Literal loopback/private addresses and
 * local names are refused here unless the operator allows private networks; names that resolve to
 * such addresses are refused again at delivery time (connect-time address check).
 */
export function readCallbackUrl(
  o: JsonObject,
  allowPrivate: boolean,
  forbiddenReason: (ip: string) => string | null,
): string | undefined {
  const v = o.callback_url;
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw bad('callback_url must be a string', 'callback_url');
  if (v.length > CALLBACK_URL_MAX)
    throw bad(`callback_url must be at most ${CALLBACK_URL_MAX} characters`, 'callback_url');
  const u = readHttpUrl(v, 'callback_url');
  if (u.username || u.password) throw bad('callback_url must not contain credentials', 'callback_url');
  const why = allowPrivate ? null : localTargetReason(u, forbiddenReason);
  if (why) throw bad(`callback_url must be a public address (not a ${why})`, 'callback_url');
  return v;
}

/**
 * Why a target URL is refused as given (a literal loopback/private address, a local host name), or null. The rule
 * of every URL the gateway POSTs to (client callbacks, alert webhooks); names resolving to such addresses are
 * refused again when connecting.
 */
export function localTargetReason(u: URL, forbiddenReason: (ip: string) => string | null): string | null {
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? forbiddenReason(host) : LOCAL_NAMES.test(host) ? 'local host name' : null;
}

export interface FieldOptions {
  allowPrivateNetwork: boolean;
  forbiddenReason: (ip: string) => string | null;
}

/**
 * watermark_info (when `watermark`), callback_url and external_task_id, read in that order: the creation fields every
 * family A task body shares.
 */
export function readTaskExtras(
  o: JsonObject,
  opts: FieldOptions,
  watermark: boolean,
): { watermarkInfo?: { enabled?: boolean }; callbackUrl?: string; externalTaskId?: string } {
  const out: { watermarkInfo?: { enabled?: boolean }; callbackUrl?: string; externalTaskId?: string } = {};
  const wm = watermark ? readWatermark(o) : undefined;
  if (wm) out.watermarkInfo = wm;
  const cb = readCallbackUrl(o, opts.allowPrivateNetwork, opts.forbiddenReason);
  if (cb) out.callbackUrl = cb;
  const ext = readExternalTaskId(o);
  if (ext) out.externalTaskId = ext;
  return out;
}

export function readOptionalString(o: JsonObject, key: string, max = PROMPT_MAX): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw bad(`${key} must be a string`, key);
  if (charLength(v) > max) throw bad(`${key} must be at most ${max} characters`, key);
  return v;
}

export function requireSessionId(o: JsonObject): string {
  const v = o.session_id;
  if (v === undefined || v === null || v === '') throw bad('session_id is required', 'session_id', 'missing_parameter');
  if (typeof v !== 'string' || v.length > 200) throw bad('session_id must be a string', 'session_id');
  return v;
}

/** Page parameters of the list endpoints: defaults 1 / 30; pageNum ≤ 1000, pageSize ≤ 500 (the vendor's bounds). */
export const PAGE_DEFAULTS = { pageNum: 1, pageSize: 30, maxPageNum: 1000, maxPageSize: 500 } as const;

export function readPage(q: Record<string, unknown>): { pageNum: number; pageSize: number } {
  const one = (key: 'pageNum' | 'pageSize', def: number, max: number): number => {
    const raw = q[key];
    if (raw === undefined || raw === '') return def;
    if (typeof raw !== 'string' || !/^\d+$/.test(raw)) throw bad(`${key} must be an integer between 1 and ${max}`, key);
    const n = Number(raw);
    if (n < 1 || n > max) throw bad(`${key} must be an integer between 1 and ${max}`, key);
    return n;
  };
  return {
    pageNum: one('pageNum', PAGE_DEFAULTS.pageNum, PAGE_DEFAULTS.maxPageNum),
    pageSize: one('pageSize', PAGE_DEFAULTS.pageSize, PAGE_DEFAULTS.maxPageSize),
  };
}
