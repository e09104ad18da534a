// What the real Kling API checks on its creation bodies (upstream names only: a stand-in `vidx-*`
// name reaching here is a gateway bug, and is refused like any unknown model). The endpoint × model table is the
// real one (upstream-protocols.md §7 "Which endpoint takes which model"): text2video does not take kling-v1-5,
// kling-v2-1 (image-to-video only) or kling-video-o1 (omni-video only); the master models take no `mode`.
import { isObj, SimParamError } from './envelope.ts';

export const T2V_MODELS = [
  'kling-v1',
  'kling-v1-6',
  'kling-v2-master',
  'kling-v2-1-master',
  'kling-v2-5-turbo',
  'kling-v2-6',
  'kling-v3',
];
/** Models the account knows that text2video does not take. */
const NOT_ON_T2V = ['kling-v1-5', 'kling-v2-1', 'kling-video-o1', 'kling-v3-omni'];
/** No std/pro mode: a `mode` is refused. */
export const MODELESS_MODELS = ['kling-v2-master', 'kling-v2-1-master'];
export const OMNI_MODELS = ['kling-video-o1', 'kling-v3-omni'];
/** Fields the omni-video endpoint does not take for o1 (its prompt holds any negative wish). */
const O1_REFUSED = ['negative_prompt', 'cfg_scale', 'camera_control'];
const CAMERA_TYPES = ['simple', 'down_back', 'forward_up', 'right_turn_forward', 'left_turn_forward'];
const CAMERA_FIELDS = ['horizontal', 'vertical', 'pan', 'tilt', 'roll', 'zoom'];

function fail(msg: string): never {
  throw new SimParamError(msg);
}

export function checkPrompt(b: Record<string, unknown>, required: boolean): string {
  const p = b.prompt;
  if (p === undefined || p === null || p === '') {
    if (required) fail('prompt is required');
    return '';
  }
  if (typeof p !== 'string') fail('prompt must be a string');
  if ([...p].length > 2500) fail('prompt length must not exceed 2500');
  if (
    b.negative_prompt !== undefined &&
    (typeof b.negative_prompt !== 'string' || [...b.negative_prompt].length > 2500)
  ) {
    fail('negative_prompt must be a string of at most 2500 characters');
  }
  return p;
}

export function checkMode(b: Record<string, unknown>, def: 'std' | 'pro'): 'std' | 'pro' {
  if (b.mode === undefined) return def;
  if (b.mode !== 'std' && b.mode !== 'pro') fail('mode must be std or pro');
  return b.mode;
}

/** Duration is a string: "5" | "10", or "3"–"15" for v3 and omni. */
export function checkDuration(b: Record<string, unknown>, wide: boolean): number {
  if (b.duration === undefined) return 5;
  if (typeof b.duration !== 'string' || !/^\d{1,2}$/.test(b.duration)) fail('duration must be a string such as "5"');
  const n = Number(b.duration);
  if (wide ? n < 3 || n > 15 : n !== 5 && n !== 10)
    fail(wide ? 'duration must be between "3" and "15"' : 'duration must be "5" or "10"');
  return n;
}

function checkCamera(c: unknown): void {
  if (!isObj(c)) fail('camera_control must be an object');
  if (typeof c.type !== 'string' || !CAMERA_TYPES.includes(c.type)) fail('camera_control.type is invalid');
  if (c.type !== 'simple') {
    if (c.config !== undefined && c.config !== null) fail('camera_control.config is only allowed with type simple');
    return;
  }
  if (!isObj(c.config)) fail('camera_control.config is required when type is simple');
  let nonZero = 0;
  for (const [k, v] of Object.entries(c.config)) {
    if (!CAMERA_FIELDS.includes(k)) fail(`camera_control.config.${k} is not supported`);
    if (typeof v !== 'number' || v < -10 || v > 10) fail(`camera_control.config.${k} must be in [-10, 10]`);
    if (v !== 0) nonZero++;
  }
  if (nonZero !== 1) fail('camera_control.config must have exactly one non-zero field');
}

/** Kling 3.0 models: multi-shot (1–6 shots), named voices and a `resolution` up to 4k. */
export const V3_MODELS = ['kling-v3', 'kling-v3-omni'];
const V3_RESOLUTIONS = ['720p', '1080p', '4k'];

/** What a creation asked that the deduction depends on. */
export interface Created {
  model: string;
  mode: 'std' | 'pro';
  seconds: number;
  sound: boolean;
  resolution: string | null;
}

/** multi_shot, shot_type, multi_prompt, resolution and voice_list: Kling 3.0's, refused on other models. */
function checkV3Fields(b: Record<string, unknown>, model: string, seconds: number): string | null {
  const v3 = V3_MODELS.includes(model);
  for (const f of ['multi_shot', 'shot_type', 'multi_prompt', 'resolution', 'voice_list'])
    if (b[f] !== undefined && !v3) fail(`${f} is not supported by ${model}`);
  if (b.resolution !== undefined && !V3_RESOLUTIONS.includes(String(b.resolution))) fail('resolution is invalid');
  if (b.voice_list !== undefined && (!Array.isArray(b.voice_list) || b.voice_list.length === 0))
    fail('voice_list must be a non-empty array');
  if (b.multi_shot === true && (b.shot_type ?? 'customize') === 'customize') {
    const list = b.multi_prompt;
    if (!Array.isArray(list) || list.length < 1 || list.length > 6) fail('multi_prompt must hold 1 to 6 shots');
    const total = list.reduce((n: number, x) => n + Number(isObj(x) ? x.duration : Number.NaN), 0);
    if (total !== seconds) fail('the shots of multi_prompt must add up to duration');
  } else if (b.multi_prompt !== undefined && b.multi_shot !== true) fail('multi_prompt needs multi_shot');
  return typeof b.resolution === 'string' ? b.resolution : null;
}

function checkSound(b: Record<string, unknown>): boolean {
  if (b.sound === undefined) return false;
  if (b.sound !== 'on' && b.sound !== 'off') fail('sound must be on or off');
  return b.sound === 'on';
}

export function checkText2Video(b: Record<string, unknown>): Created {
  const model = b.model_name ?? b.model ?? 'kling-v1';
  if (typeof model === 'string' && NOT_ON_T2V.includes(model))
    fail(`model_name '${model}' is not supported by text2video`);
  if (typeof model !== 'string' || !T2V_MODELS.includes(model)) fail(`model_name is invalid: ${String(model)}`);
  if (MODELESS_MODELS.includes(model) && b.mode !== undefined) fail(`mode is not supported by ${model}`);
  checkPrompt(b, true);
  if (b.cfg_scale !== undefined) {
    if (model.startsWith('kling-v2') || model.startsWith('kling-v3')) fail(`cfg_scale is not supported by ${model}`);
    if (typeof b.cfg_scale !== 'number' || b.cfg_scale < 0 || b.cfg_scale > 1) fail('cfg_scale must be in [0, 1]');
  }
  const sound = checkSound(b);
  if (b.sound !== undefined && model !== 'kling-v2-6' && model !== 'kling-v3')
    fail(`sound is not supported by ${model}`);
  if (b.aspect_ratio !== undefined && !['16:9', '9:16', '1:1'].includes(String(b.aspect_ratio)))
    fail('aspect_ratio is invalid');
  if (b.camera_control !== undefined) checkCamera(b.camera_control);
  checkCommon(b);
  const seconds = checkDuration(b, model === 'kling-v3');
  return { model, mode: checkMode(b, 'std'), seconds, sound, resolution: checkV3Fields(b, model, seconds) };
}

const isFirstFrame = (i: unknown): boolean => isObj(i) && i.type === 'first_frame';

/** o1's duration: "3"–"10" with reference media, "5" | "10" text-only or first-frame-only. */
function o1Duration(b: Record<string, unknown>): number {
  const images = Array.isArray(b.image_list) ? b.image_list : [];
  const media =
    (Array.isArray(b.video_list) && b.video_list.length > 0) ||
    (Array.isArray(b.element_list) && b.element_list.length > 0) ||
    images.length > 1 ||
    images.some((i) => !isFirstFrame(i));
  const n = checkDuration(b, true);
  if (media ? n > 10 : n !== 5 && n !== 10)
    fail(
      media
        ? 'duration must be between "3" and "10" for kling-video-o1'
        : 'duration must be "5" or "10" for kling-video-o1 without reference media',
    );
  return n;
}

export function checkOmni(b: Record<string, unknown>): Created {
  const model = b.model_name ?? 'kling-video-o1';
  if (typeof model !== 'string' || !OMNI_MODELS.includes(model)) fail(`model_name is invalid: ${String(model)}`);
  checkPrompt(b, true);
  if (b.image_list !== undefined && !Array.isArray(b.image_list)) fail('image_list must be an array');
  if (b.video_list !== undefined && (!Array.isArray(b.video_list) || b.video_list.length > 1))
    fail('video_list must be an array of at most 1 item');
  if (b.aspect_ratio !== undefined && !['16:9', '9:16', '1:1'].includes(String(b.aspect_ratio)))
    fail('aspect_ratio is invalid');
  if (model === 'kling-video-o1') {
    for (const f of O1_REFUSED) if (b[f] !== undefined) fail(`${f} is not supported by ${model}`);
    const firstFrame = Array.isArray(b.image_list) && b.image_list.some(isFirstFrame);
    if (b.aspect_ratio === undefined && !firstFrame) fail('aspect_ratio is required when no first frame is given');
  }
  checkCommon(b);
  const sound = checkSound(b);
  const seconds = model === 'kling-video-o1' ? o1Duration(b) : checkDuration(b, true);
  return { model, mode: checkMode(b, 'pro'), seconds, sound, resolution: checkV3Fields(b, model, seconds) };
}

export function checkCommon(b: Record<string, unknown>): void {
  if (b.callback_url !== undefined && (typeof b.callback_url !== 'string' || !/^https?:\/\//.test(b.callback_url)))
    fail('callback_url is invalid');
  if (b.external_task_id !== undefined && typeof b.external_task_id !== 'string')
    fail('external_task_id must be a string');
  if (b.watermark_info !== undefined && !isObj(b.watermark_info)) fail('watermark_info must be an object');
}

export function checkPoints(v: unknown): Array<{ x: number; y: number }> {
  if (!Array.isArray(v) || v.length === 0 || v.length > 10) fail('points must be an array of 1 to 10 points');
  return v.map((p) => {
    if (!isObj(p) || typeof p.x !== 'number' || typeof p.y !== 'number') fail('each point needs numeric x and y');
    if (p.x < 0 || p.x > 1 || p.y < 0 || p.y > 1) fail('point coordinates must be in [0, 1]');
    return { x: p.x, y: p.y };
  });
}
