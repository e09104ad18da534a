// DashScope video synthesis, media protocol (wan2.7-*, happyhorse-*): async only (`X-DashScope-Async:
// enable`), validated per model (checkMedia below), results through the shared task store.
import type { ServerResponse } from 'node:http';
import type { SimContext } from '../context.ts';
import type { SimRequest, SimRouter } from '../router.ts';
import { nativeError } from './errors.ts';
import { resultVideoUrl } from './results-video.ts';
import { dashscopeAccountOf } from '../auth.ts';
import { createDashscopeTask, taskCreatedReply, taskFaultOf } from './tasks.ts';

export const VIDEO_SYNTHESIS_PATH = '/api/v1/services/aigc/video-generation/video-synthesis';

type Family = 'wan' | 'happyhorse';
type Variant = 't2v' | 'i2v' | 'r2v' | 'edit';

interface ModelInfo {
  family: Family;
  variant: Variant;
  /** wan2.6 and wan3.0 make sound (`parameters.audio`, default on) and report it in their usage. */
  audio?: boolean;
}

const RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4'];
/** Duration the simulator pretends every edit source video has (HappyHorse example: 6.62 s). */
export const SIM_SOURCE_VIDEO_SECONDS = 6.62;

export function modelInfo(model: string): ModelInfo | null {
  const wan = /^wan(2\.6|2\.7|3\.0)-(t2v|i2v|r2v|videoedit)(-\d{4}-?\d{2}-?\d{2})?$/.exec(model);
  if (wan) {
    if (wan[3] && wan[2] !== 't2v' && wan[2] !== 'i2v') return null;
    const variant = wan[2] === 'videoedit' ? 'edit' : (wan[2] as Variant);
    return { family: 'wan', variant, ...(wan[1] !== '2.7' ? { audio: true } : {}) };
  }
  const hh = /^happyhorse-1\.(0|1)-(t2v|i2v|r2v|video-edit)$/.exec(model);
  if (hh) {
    if (hh[2] === 'video-edit' && hh[1] !== '0') return null;
    return { family: 'happyhorse', variant: hh[2] === 'video-edit' ? 'edit' : (hh[2] as Variant) };
  }
  return null;
}

interface MediaItem {
  type: string;
  url: string;
}

class Invalid extends Error {}
const invalid = (m: string): never => {
  throw new Invalid(m);
};

function readMedia(input: Record<string, unknown>): MediaItem[] {
  const m = input.media;
  if (m === undefined) return [];
  if (!Array.isArray(m)) return invalid('input.media must be an array');
  return m.map((x, i) => {
    const o = x as { type?: unknown; url?: unknown };
    if (typeof x !== 'object' || x === null || typeof o.type !== 'string' || typeof o.url !== 'string')
      return invalid(`input.media[${i}] must be {type, url}`);
    if (!/^https?:\/\//.test(o.url)) return invalid(`input.media[${i}].url must be an http(s) URL`);
    if (
      (o.type === 'video' || o.type === 'first_clip' || o.type === 'reference_video') &&
      !/\.(mp4|mov)(\?|$)/i.test(o.url)
    ) {
      return invalid(`input.media[${i}].url must be an mp4 or mov file`);
    }
    return { type: o.type, url: o.url };
  });
}

function count(media: MediaItem[], type: string): number {
  return media.filter((m) => m.type === type).length;
}

function onlyTypes(media: MediaItem[], allowed: string[], model: string): void {
  const bad = media.find((m) => !allowed.includes(m.type));
  if (bad) invalid(`media type ${bad.type} is not supported by ${model}`);
}

/** Media rules of the video synthesis protocol, per model. */
function checkMedia(info: ModelInfo, model: string, media: MediaItem[]): void {
  const { family, variant } = info;
  if (variant === 't2v') return void (media.length > 0 && invalid(`${model} takes no media`));
  if (family === 'happyhorse' && variant === 'i2v') {
    onlyTypes(media, ['first_frame'], model);
    if (media.length !== 1) invalid(`${model} requires exactly one first_frame`);
  } else if (family === 'happyhorse' && variant === 'r2v') {
    onlyTypes(media, ['reference_image'], model);
    if (media.length < 1 || media.length > 9) invalid(`${model} requires 1 to 9 reference_image items`);
  } else if (family === 'happyhorse' && variant === 'edit') {
    onlyTypes(media, ['video', 'reference_image'], model);
    if (count(media, 'video') !== 1) invalid(`${model} requires exactly one video`);
    if (count(media, 'reference_image') > 5) invalid(`${model} takes at most 5 reference_image items`);
  } else if (variant === 'i2v') {
    onlyTypes(media, ['first_frame', 'last_frame', 'first_clip', 'driving_audio'], model);
    const ff = count(media, 'first_frame');
    const fc = count(media, 'first_clip');
    if (ff + fc !== 1) invalid(`${model} requires one first_frame or one first_clip`);
    if (count(media, 'last_frame') > 1) invalid(`${model} takes at most one last_frame`);
  } else if (variant === 'r2v') {
    onlyTypes(media, ['reference_image', 'reference_video', 'first_frame'], model);
    const refs = count(media, 'reference_image') + count(media, 'reference_video');
    if (refs < 1 || refs > 5) invalid(`${model} requires 1 to 5 reference_image/reference_video items`);
    if (count(media, 'first_frame') > 1) invalid(`${model} takes at most one first_frame`);
  } else {
    onlyTypes(media, ['video', 'reference_image'], model);
    if (count(media, 'video') !== 1) invalid(`${model} requires exactly one video`);
    if (count(media, 'reference_image') > 4) invalid(`${model} takes at most 4 reference_image items`);
  }
}

interface Params {
  resolution: 720 | 1080;
  duration: number;
  ratio: string | null;
  /** With sound (models that make it: ModelInfo.audio). */
  audio: boolean;
}

function checkParams(info: ModelInfo, model: string, p: Record<string, unknown>, media: MediaItem[]): Params {
  const { family, variant } = info;
  let resolution: 720 | 1080 = 1080;
  if (p.resolution !== undefined) {
    if (p.resolution === '720P') resolution = 720;
    else if (p.resolution !== '1080P') invalid('parameters.resolution must be 720P or 1080P');
  }
  const takesDuration = !(family === 'happyhorse' && variant === 'edit');
  const takesRatio = family === 'happyhorse' ? variant === 't2v' || variant === 'r2v' : variant === 't2v';
  if (p.ratio !== undefined) {
    if (!takesRatio) invalid(`parameters.ratio is not supported by ${model}`);
    if (typeof p.ratio !== 'string' || !RATIOS.includes(p.ratio))
      invalid(`parameters.ratio must be one of ${RATIOS.join(', ')}`);
  }
  let duration = 5;
  if (p.duration !== undefined) {
    if (!takesDuration) invalid(`parameters.duration is not supported by ${model}`);
    const d = p.duration;
    if (typeof d !== 'number' || !Number.isInteger(d)) invalid('parameters.duration must be an integer');
    const n = d as number;
    if (family === 'wan' && variant === 'edit') {
      if (n !== 0 && (n < 2 || n > 10)) invalid('parameters.duration must be 0 or 2 to 10');
    } else {
      const min = family === 'happyhorse' ? 3 : 2;
      const max = family === 'wan' && variant === 'r2v' && count(media, 'reference_video') > 0 ? 10 : 15;
      if (n < min || n > max) invalid(`parameters.duration must be between ${min} and ${max}`);
    }
    duration = n;
  } else if (variant === 'edit') {
    duration = 0;
  }
  if (
    p.seed !== undefined &&
    (typeof p.seed !== 'number' || !Number.isInteger(p.seed) || p.seed < 0 || p.seed > 2147483647)
  ) {
    invalid('parameters.seed must be an integer in [0, 2147483647]');
  }
  if (p.audio !== undefined && (!info.audio || typeof p.audio !== 'boolean'))
    invalid(info.audio ? 'parameters.audio must be a boolean' : `parameters.audio is not supported by ${model}`);
  const audio = info.audio === true && p.audio !== false;
  return { resolution, duration, ratio: typeof p.ratio === 'string' ? p.ratio : null, audio };
}

/**
 * Usage as the real API reports it: HappyHorse in/out/duration + SR; Wan video_duration (+ input for edits), SR as a
 * string.
 */
function usageFor(info: ModelInfo, prm: Params): { usage: Record<string, unknown>; outSeconds: number } {
  const isEdit = info.variant === 'edit';
  const out = isEdit && prm.duration === 0 ? SIM_SOURCE_VIDEO_SECONDS : prm.duration;
  const input = isEdit ? SIM_SOURCE_VIDEO_SECONDS : 0;
  if (info.family === 'happyhorse') {
    const usage: Record<string, unknown> = {
      duration: Math.round((input + out) * 100) / 100,
      input_video_duration: input,
      output_video_duration: out,
      video_count: 1,
      SR: prm.resolution,
    };
    if (prm.ratio) usage.ratio = prm.ratio;
    return { usage, outSeconds: out };
  }
  const usage: Record<string, unknown> = { video_count: 1, video_duration: out, SR: String(prm.resolution) };
  if (isEdit) usage.input_video_duration = input;
  if (info.audio) usage.audio = prm.audio;
  return { usage, outSeconds: out };
}

function handle(ctx: SimContext, req: SimRequest, res: ServerResponse): void {
  if (String(req.headers['x-dashscope-async'] ?? '').toLowerCase() !== 'enable') {
    return nativeError(res, 403, 'AccessDenied', 'current user api does not support synchronous calls');
  }
  const body = req.json as { model?: unknown; input?: unknown; parameters?: unknown } | undefined;
  if (!body || typeof body !== 'object')
    return nativeError(res, 400, 'InvalidParameter', 'Request body is not valid JSON.');
  if (typeof body.model !== 'string' || body.model === '')
    return nativeError(res, 400, 'BadRequest.EmptyModel', 'Required parameter "model" missing from request.');
  const model = body.model;
  const info = modelInfo(model);
  if (!info) return nativeError(res, 400, 'InvalidParameter', 'Model not exist.');
  const input = (body.input ?? {}) as Record<string, unknown>;
  const params = (body.parameters ?? {}) as Record<string, unknown>;
  let prm: Params;
  try {
    if (typeof input !== 'object' || input === null) invalid('input must be an object');
    const prompt = input.prompt;
    if (prompt !== undefined && typeof prompt !== 'string') invalid('input.prompt must be a string');
    if ((info.variant === 't2v' || info.variant === 'r2v') && (typeof prompt !== 'string' || prompt.trim() === '')) {
      return nativeError(res, 400, 'BadRequest.EmptyInput', 'Required input parameter "prompt" missing.');
    }
    const media = readMedia(input);
    checkMedia(info, model, media);
    prm = checkParams(info, model, params, media);
  } catch (e) {
    if (e instanceof Invalid) return nativeError(res, 400, 'InvalidParameter', e.message);
    throw e;
  }
  const { usage } = usageFor(info, prm);
  const task = createDashscopeTask(ctx, {
    area: 'video-synthesis',
    model,
    fault: taskFaultOf(req),
    account: dashscopeAccountOf(req.req, ctx.opts.dashscopeKeys),
    failure: {
      code: 'InternalError.Algo',
      message: 'Video generation failed: the algorithm could not render this request.',
    },
    extra: typeof input.prompt === 'string' ? { orig_prompt: input.prompt } : {},
    succeed: (t) => ({ output: { video_url: resultVideoUrl(ctx, t.id).url }, usage }),
  });
  taskCreatedReply(res, task);
}

export function registerVideoSynthesis(router: SimRouter, ctx: SimContext): void {
  router.on('POST', VIDEO_SYNTHESIS_PATH, (req, res) => handle(ctx, req, res));
}
