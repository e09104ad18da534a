// Multi-element editing: selection calls and the edit-task body; and the
// omni-video path's minimal checks (its body is the vendor's, passed through).
import type { VidxEndpoint } from '../catalogue/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { literalHostReason } from '../net/address-policy.ts';
import {
  readDuration,
  readHttpUrl,
  readMode,
  readOptionalString,
  readPrompt,
  readTaskExtras,
  refuseUntakenFields,
  requireSessionId,
  type FieldOptions,
  type Mode,
} from './vidx.ts';
import { requireBody } from './fields.ts';
import { readPricedFields, type PricedFields } from './vidx-priced.ts';
import { isObject, type JsonObject } from '../json/json.ts';

export const EDIT_MODEL = 'vidx-v1-6';
/** Hidden catalogue entry whose price applies to edit tasks. */
export const EDIT_BILLING_MODEL = 'vidx-v1-6-multi-elements';
export const EDIT_MODES = ['addition', 'swap', 'removal'] as const;
export type EditMode = (typeof EDIT_MODES)[number];
export const IMAGE_COUNT: Record<EditMode, [number, number]> = { addition: [1, 2], swap: [1, 1], removal: [0, 0] };
export const MAX_POINTS = 10;
export const DEFAULT_OMNI_MODEL = 'vidx-v3-omni';
/** The contract's aspect ratio default, sent where the upstream requires one (omni o1 without a first frame). */
export const DEFAULT_ASPECT_RATIO = '16:9';

const invalid = (message: string, param: string) => new GatewayError('invalid_parameter', message, { param });

/** A reference URL the upstream will fetch: its host, when an IP literal, must be a public address. */
function publicUrl(u: URL, param: string): void {
  const why = literalHostReason(u);
  if (why) throw invalid(`${param} must be a public http(s) URL (not a ${why})`, param);
}

export type InitSelection = { videoId: string } | { videoUrl: string };

export function parseInitSelection(body: unknown): InitSelection {
  const o = requireBody(body);
  const id = o.video_id === undefined || o.video_id === null || o.video_id === '' ? undefined : o.video_id;
  const url = o.video_url === undefined || o.video_url === null || o.video_url === '' ? undefined : o.video_url;
  if ((id === undefined) === (url === undefined))
    throw invalid('exactly one of video_id and video_url is required', id === undefined ? 'video_id' : 'video_url');
  if (id !== undefined) {
    if (typeof id !== 'string' || id.length > 200) throw invalid('video_id must be a string', 'video_id');
    return { videoId: id };
  }
  if (typeof url !== 'string' || url.length > 2048) throw invalid('video_url must be a string', 'video_url');
  publicUrl(readHttpUrl(url, 'video_url'), 'video_url');
  return { videoUrl: url };
}

export interface SelectionPoints {
  sessionId: string;
  frameIndex: number;
  points: Array<{ x: number; y: number }>;
}

export function parseSelectionPoints(body: unknown): SelectionPoints {
  const o = requireBody(body);
  const sessionId = requireSessionId(o);
  const f = o.frame_index;
  if (f === undefined || f === null)
    throw new GatewayError('missing_parameter', 'frame_index is required', { param: 'frame_index' });
  if (typeof f !== 'number' || !Number.isInteger(f) || f < 0)
    throw invalid('frame_index must be a non-negative integer', 'frame_index');
  const p = o.points;
  if (p === undefined || p === null)
    throw new GatewayError('missing_parameter', 'points is required', { param: 'points' });
  if (!Array.isArray(p) || p.length === 0 || p.length > MAX_POINTS)
    throw invalid(`points must be an array of 1 to ${MAX_POINTS} points`, 'points');
  const points = p.map((pt, i) => {
    if (
      !isObject(pt) ||
      typeof pt.x !== 'number' ||
      typeof pt.y !== 'number' ||
      !Number.isFinite(pt.x) ||
      !Number.isFinite(pt.y)
    ) {
      throw invalid(`points[${i}] must be an object with numeric x and y`, `points[${i}]`);
    }
    if (pt.x < 0 || pt.x > 1 || pt.y < 0 || pt.y > 1)
      throw invalid(`points[${i}].x and .y must be in [0, 1]`, `points[${i}]`);
    return { x: pt.x, y: pt.y };
  });
  return { sessionId, frameIndex: f, points };
}

export function parseSessionOnly(body: unknown): { sessionId: string } {
  return { sessionId: requireSessionId(requireBody(body)) };
}

export interface EditRequest {
  sessionId: string;
  editMode: EditMode;
  images: string[];
  prompt: string;
  negativePrompt?: string;
  mode: Mode;
  duration: number;
  watermarkInfo?: { enabled?: boolean };
  callbackUrl?: string;
  externalTaskId?: string;
}

/** The edit-task body, given how the edit model is served (`rules`: fields, durations, default mode). */
export function parseEditRequest(body: unknown, rules: VidxEndpoint, opts: FieldOptions): EditRequest {
  const o = requireBody(body);
  if (o.model_name !== undefined && o.model_name !== null && o.model_name !== EDIT_MODEL) {
    throw new GatewayError('model_not_supported', `model_name must be ${EDIT_MODEL} for multi-element editing`, {
      param: 'model_name',
    });
  }
  const sessionId = requireSessionId(o);
  if (o.edit_mode === undefined || o.edit_mode === null)
    throw new GatewayError('missing_parameter', 'edit_mode is required', { param: 'edit_mode' });
  if (typeof o.edit_mode !== 'string' || !(EDIT_MODES as readonly string[]).includes(o.edit_mode))
    throw invalid(`edit_mode must be one of ${EDIT_MODES.join(', ')}`, 'edit_mode');
  const editMode = o.edit_mode as EditMode;
  const list = o.image_list ?? [];
  if (!Array.isArray(list)) throw invalid('image_list must be an array of {image}', 'image_list');
  const images = list.map((it, i) => {
    if (!isObject(it) || typeof it.image !== 'string' || it.image.trim() === '')
      throw invalid(`image_list[${i}] must be an object with a non-empty image`, `image_list[${i}].image`);
    // An image is a URL or base64 text; a URL must name a public host.
    if (/^https?:/i.test(it.image) && URL.canParse(it.image)) publicUrl(new URL(it.image), `image_list[${i}].image`);
    return it.image;
  });
  const [min, max] = IMAGE_COUNT[editMode];
  if (images.length < min || images.length > max) {
    const want = min === max ? (min === 0 ? 'no images' : `exactly ${min} image`) : `${min} to ${max} images`;
    throw invalid(`edit_mode ${editMode} takes ${want} in image_list (got ${images.length})`, 'image_list');
  }
  refuseUntakenFields(o, EDIT_MODEL, rules);
  const out: EditRequest = {
    sessionId,
    editMode,
    images,
    prompt: readPrompt(o)!,
    mode: readMode(o, rules.defaultMode),
    duration: readDuration(o, rules.durations),
  };
  const neg = readOptionalString(o, 'negative_prompt');
  if (neg !== undefined) out.negativePrompt = neg;
  return Object.assign(out, readTaskExtras(o, opts, true));
}

export interface OmniRequest {
  /** The vendor body as sent (model_name, callback_url and external_task_id are rewritten on the way up). */
  body: Record<string, unknown>;
  mode: Mode;
  duration: number;
  /** What the price depends on beyond mode and duration (sound, resolution, shots, voice). */
  priced: PricedFields;
  callbackUrl?: string;
  externalTaskId?: string;
}

const nonEmpty = (v: unknown): boolean => Array.isArray(v) && v.length > 0;

/** An `image_list` item that is the first frame (`type: first_frame`). */
const isFirstFrame = (it: unknown): boolean => isObject(it) && it.type === 'first_frame';

/** The omni body gives a first frame. */
export function hasFirstFrame(o: JsonObject): boolean {
  return Array.isArray(o.image_list) && o.image_list.some(isFirstFrame);
}

/** The omni body carries reference media beyond one first frame (other images, elements, a video). */
export function hasReferenceMedia(o: JsonObject): boolean {
  const images = Array.isArray(o.image_list) ? o.image_list : [];
  return (
    nonEmpty(o.video_list) || nonEmpty(o.element_list) || images.some((it) => !isFirstFrame(it)) || images.length > 1
  );
}

/**
 * Omni-video: the body is the vendor's; we check what auth, admission and the hold need, and the model's rules
 * (catalogue data): the fields it takes, its durations (with and without reference media) and its default mode.
 */
export function parseOmni(body: unknown, model: string, rules: VidxEndpoint, opts: FieldOptions): OmniRequest {
  const o = requireBody(body);
  refuseUntakenFields(o, model, rules);
  readPrompt(o);
  const durations = rules.mediaDurations && hasReferenceMedia(o) ? rules.mediaDurations : rules.durations;
  const duration = readDuration(o, durations);
  const out: OmniRequest = {
    body: o,
    mode: readMode(o, rules.defaultMode),
    duration,
    priced: readPricedFields(o, rules, duration),
  };
  // The upstream requires aspect_ratio without a first frame (o1): the contract default goes up when none is given.
  if (rules.aspectRatioRequired && (o.aspect_ratio === undefined || o.aspect_ratio === null) && !hasFirstFrame(o))
    out.body = { ...o, aspect_ratio: DEFAULT_ASPECT_RATIO };
  // watermark_info is the vendor's and passes through unchecked here.
  return Object.assign(out, readTaskExtras(o, opts, false));
}
