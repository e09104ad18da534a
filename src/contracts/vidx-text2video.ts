// POST /vidx/v1/videos/text2video: model admission and the field rules (camera_control included).
import { echo } from '../errors/echo.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import { REFUSED_MODELS } from '../catalogue/default-catalogue.ts';
import type { ModelEntry, VidxEndpoint } from '../catalogue/types.ts';
import { vidxEndpointOf } from '../catalogue/vidx-endpoints.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import {
  readDuration,
  readMode,
  readOptionalString,
  readPrompt,
  readTaskExtras,
  refuseUntakenFields,
  type FieldOptions,
  type Mode,
} from './vidx.ts';
import { requireBody } from './fields.ts';
import { readPricedFields, type PricedFields } from './vidx-priced.ts';
import { isObject, type JsonObject } from '../json/json.ts';

export const DEFAULT_T2V_MODEL = 'vidx-v1';
export const ASPECT_RATIOS = ['16:9', '9:16', '1:1'] as const;
export const CAMERA_TYPES = ['simple', 'down_back', 'forward_up', 'right_turn_forward', 'left_turn_forward'] as const;
export const CAMERA_FIELDS = ['horizontal', 'vertical', 'pan', 'tilt', 'roll', 'zoom'] as const;
export const OMNI_PATH = '/vidx/v1/videos/omni-video';

export interface CameraControl {
  type: (typeof CAMERA_TYPES)[number];
  config?: Partial<Record<(typeof CAMERA_FIELDS)[number], number>>;
}

export interface Text2VideoRequest {
  prompt: string;
  negativePrompt?: string;
  cfgScale?: number;
  sound?: 'on' | 'off';
  /** What the price depends on beyond mode and duration (sound, resolution, shots, voice). */
  priced?: PricedFields;
  /** multi_shot, shot_type, multi_prompt, resolution, voice_list as given (checked): they go upstream unchanged. */
  passThrough?: Record<string, unknown>;
  mode: Mode;
  aspectRatio: (typeof ASPECT_RATIOS)[number];
  duration: number;
  cameraControl?: CameraControl;
  watermarkInfo?: { enabled?: boolean };
  callbackUrl?: string;
  externalTaskId?: string;
}

/** Fields that go upstream as the client gave them, once checked (readPricedFields). */
const PASSED_THROUGH = ['multi_shot', 'shot_type', 'multi_prompt', 'resolution', 'voice_list'];

const invalid = (message: string, param: string) => new GatewayError('invalid_parameter', message, { param });

/** Public text-to-video models, from the catalogue (so operator overrides apply). */
export function text2VideoModels(catalogue: Catalogue): string[] {
  return catalogue
    .entries()
    .filter((e) => e.kind === 'vidx-video' && !e.hidden && vidxEndpointOf(e, 'text2video'))
    .map((e) => e.id);
}

/**
 * How an admitted text2video model is served (catalogue data), or its refusal: a model no upstream endpoint serves
 * for text-to-video (v1-5 and v2-1 are image-to-video only upstream) is refused before any hold or upstream call.
 */
export function text2VideoEndpoint(entry: ModelEntry, model: string): VidxEndpoint {
  const rules = vidxEndpointOf(entry, 'text2video');
  if (!rules)
    throw new GatewayError('model_not_supported', `The model '${model}' does not support text-to-video`, {
      param: 'model_name',
    });
  return rules;
}

/**
 * The canonical public model for a text2video request, before visibility is checked. Refusals with
 * a reason (3.0 turbo, omni on the wrong path, a model of another kind) are 400/1201; a name the
 * catalogue does not know at all is model_not_found (404/1203), as everywhere else.
 */
export function admitText2VideoModel(raw: unknown, catalogue: Catalogue): string {
  if (raw === undefined || raw === null) return DEFAULT_T2V_MODEL;
  if (typeof raw !== 'string' || raw.trim() === '')
    throw invalid('model_name must be a non-empty string', 'model_name');
  const canonical = catalogue.canonicalName(raw);
  if (REFUSED_MODELS.includes(raw) || REFUSED_MODELS.includes(canonical)) {
    throw new GatewayError('model_not_supported', `The model '${raw}' (version 3.0 turbo) is not admitted`, {
      param: 'model_name',
    });
  }
  const entry = catalogue.get(canonical);
  if (entry?.kind === 'vidx-omni') {
    throw new GatewayError(
      'model_not_supported',
      `The model '${raw}' is not accepted on text2video; use POST ${OMNI_PATH}`,
      { param: 'model_name' },
    );
  }
  if (!entry)
    throw new GatewayError(
      'model_not_found',
      `The model '${echo(raw)}' does not exist or you do not have access to it`,
      { param: 'model_name' },
    );
  if (entry.kind !== 'vidx-video' || entry.hidden) {
    throw new GatewayError(
      'model_not_supported',
      `The model '${raw}' is not a text-to-video model; allowed: ${text2VideoModels(catalogue).join(', ')}`,
      {
        param: 'model_name',
      },
    );
  }
  return canonical;
}

function readCameraControl(o: JsonObject): CameraControl | undefined {
  const v = o.camera_control;
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw invalid('camera_control must be an object', 'camera_control');
  if (typeof v.type !== 'string' || !(CAMERA_TYPES as readonly string[]).includes(v.type)) {
    throw invalid(`camera_control.type must be one of ${CAMERA_TYPES.join(', ')}`, 'camera_control.type');
  }
  const type = v.type as CameraControl['type'];
  if (type !== 'simple') {
    // The vendor takes config only with `simple`; sending it with a preset is a client mistake.
    if (v.config !== undefined && v.config !== null)
      throw invalid('camera_control.config is only allowed when type is simple', 'camera_control.config');
    return { type };
  }
  if (!isObject(v.config))
    throw invalid('camera_control.config is required when type is simple', 'camera_control.config');
  const config: NonNullable<CameraControl['config']> = {};
  let nonZero = 0;
  for (const [k, val] of Object.entries(v.config)) {
    if (!(CAMERA_FIELDS as readonly string[]).includes(k))
      throw invalid(
        `camera_control.config.${k} is not a camera field (${CAMERA_FIELDS.join(', ')})`,
        `camera_control.config.${k}`,
      );
    if (typeof val !== 'number' || !Number.isFinite(val))
      throw invalid(`camera_control.config.${k} must be a number`, `camera_control.config.${k}`);
    // Contract: horizontal in [-10, 10]; the vendor applies the same range to every field.
    if (val < -10 || val > 10)
      throw invalid(`camera_control.config.${k} must be in [-10, 10]`, `camera_control.config.${k}`);
    if (val !== 0) nonZero++;
    config[k as (typeof CAMERA_FIELDS)[number]] = val;
  }
  if (nonZero !== 1)
    throw invalid(
      'camera_control.config must have exactly one non-zero field; all others must be 0',
      'camera_control.config',
    );
  return { type, config };
}

/**
 * Field rules for a text2video body, given the admitted canonical model and how it is served (`rules`: the fields
 * it takes, its durations and default mode). A field the model does not take is refused, naming it.
 */
export function parseText2Video(
  body: unknown,
  model: string,
  rules: VidxEndpoint,
  opts: FieldOptions,
): Text2VideoRequest {
  const o = requireBody(body);
  refuseUntakenFields(o, model, rules);
  const prompt = readPrompt(o)!;
  const duration = readDuration(o, rules.durations);
  const priced = readPricedFields(o, rules, duration);
  const passThrough: Record<string, unknown> = {};
  for (const k of PASSED_THROUGH) if (o[k] !== undefined && o[k] !== null) passThrough[k] = o[k];
  const out: Text2VideoRequest = {
    prompt,
    priced,
    passThrough,
    mode: readMode(o, rules.defaultMode),
    aspectRatio: '16:9',
    duration,
  };
  const neg = readOptionalString(o, 'negative_prompt');
  if (neg !== undefined) out.negativePrompt = neg;
  if (o.cfg_scale !== undefined && o.cfg_scale !== null) {
    if (typeof o.cfg_scale !== 'number' || !Number.isFinite(o.cfg_scale) || o.cfg_scale < 0 || o.cfg_scale > 1)
      throw invalid('cfg_scale must be a number in [0, 1]', 'cfg_scale');
    out.cfgScale = o.cfg_scale;
  }
  if (priced.sound) out.sound = priced.sound;
  if (o.aspect_ratio !== undefined && o.aspect_ratio !== null) {
    if (typeof o.aspect_ratio !== 'string' || !(ASPECT_RATIOS as readonly string[]).includes(o.aspect_ratio)) {
      throw invalid(`aspect_ratio must be one of ${ASPECT_RATIOS.join(', ')}`, 'aspect_ratio');
    }
    out.aspectRatio = o.aspect_ratio as Text2VideoRequest['aspectRatio'];
  }
  const cam = readCameraControl(o);
  if (cam) out.cameraControl = cam;
  return Object.assign(out, readTaskExtras(o, opts, true));
}
