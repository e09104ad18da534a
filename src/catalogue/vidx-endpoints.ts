// Family A: which upstream endpoint serves a model on each contract path, and which fields it takes there. The
// truth is catalogue data (ModelEntry.vidx, default-catalogue.ts); an operator changes it in the catalogue file,
// which is checked here (validateVidxEndpoints) before the gateway starts.
import { VIDX_FIELDS, VIDX_PATHS, type ModelEntry, type VidxEndpoint, type VidxField, type VidxPath } from './types.ts';
import { isObject } from '../json/json.ts';

export const DURATIONS_5_10 = ['5', '10'];

/** "a" … "b" as duration strings. */
export const durationRange = (a: number, b: number): string[] =>
  Array.from({ length: b - a + 1 }, (_, i) => String(a + i));

/** The classic text2video endpoint's usual rules (a model added without `vidx` data gets these). */
export function text2videoRules(fields: VidxField[] = ['mode', 'negative_prompt', 'camera_control']): VidxEndpoint {
  return { endpoint: 'text2video', fields, durations: DURATIONS_5_10, defaultMode: 'std' };
}

const KIND_DEFAULTS: Partial<Record<ModelEntry['kind'], Partial<Record<VidxPath, VidxEndpoint>>>> = {
  'vidx-video': { text2video: text2videoRules() },
  'vidx-omni': {
    'omni-video': {
      endpoint: 'omni-video',
      fields: ['mode', 'sound'],
      durations: durationRange(3, 15),
      defaultMode: 'pro',
    },
  },
  'vidx-edit': {
    'multi-elements': {
      endpoint: 'multi-elements',
      fields: ['mode', 'negative_prompt'],
      durations: DURATIONS_5_10,
      defaultMode: 'std',
      sendModelName: false,
    },
  },
};

/** How `entry` is served on `path`, or null when it is not served there. */
export function vidxEndpointOf(entry: ModelEntry, path: VidxPath): VidxEndpoint | null {
  const table = entry.vidx ?? KIND_DEFAULTS[entry.kind];
  return table?.[path] ?? null;
}

/** The upstream endpoints a contract path may be served by (o1's text-to-video is an omni-video task). */
export const SERVED_BY: Record<VidxPath, readonly VidxPath[]> = {
  text2video: ['text2video', 'omni-video'],
  'omni-video': ['omni-video'],
  'multi-elements': ['multi-elements'],
};

const ENDPOINT_KEYS = [
  'endpoint',
  'fields',
  'durations',
  'mediaDurations',
  'defaultMode',
  'aspectRatioRequired',
  'sendModelName',
  'upstreamModel',
  'resolutions',
  'maxShots',
];

const RESOLUTIONS = ['480p', '720p', '1080p', '2k', '4k'];

function durations(v: unknown, where: string): string[] {
  if (!Array.isArray(v) || v.length === 0 || !v.every((d) => typeof d === 'string' && /^[1-9]\d?$/.test(d))) {
    throw new Error(`${where} must be a non-empty array of duration strings such as "5"`);
  }
  return [...new Set(v as string[])];
}

function endpointRules(path: VidxPath, v: unknown, where: string): VidxEndpoint {
  if (!isObject(v)) throw new Error(`${where} must be an object with an "endpoint"`);
  for (const k of Object.keys(v))
    if (!ENDPOINT_KEYS.includes(k))
      throw new Error(`${where}.${k} is not a known field (allowed: ${ENDPOINT_KEYS.join(', ')})`);
  if (typeof v.endpoint !== 'string' || !SERVED_BY[path].includes(v.endpoint as VidxPath)) {
    throw new Error(`${where}.endpoint must be one of ${SERVED_BY[path].join(', ')}`);
  }
  const out: VidxEndpoint = { ...text2videoRules(), endpoint: v.endpoint as VidxPath };
  if (v.fields !== undefined) {
    if (
      !Array.isArray(v.fields) ||
      !v.fields.every((f) => typeof f === 'string' && (VIDX_FIELDS as readonly string[]).includes(f))
    ) {
      throw new Error(`${where}.fields must be an array of ${VIDX_FIELDS.join(', ')}`);
    }
    out.fields = [...new Set(v.fields as VidxField[])];
  }
  if (v.durations !== undefined) out.durations = durations(v.durations, `${where}.durations`);
  if (v.mediaDurations !== undefined) out.mediaDurations = durations(v.mediaDurations, `${where}.mediaDurations`);
  if (v.defaultMode !== undefined) {
    if (v.defaultMode !== 'std' && v.defaultMode !== 'pro')
      throw new Error(`${where}.defaultMode must be "std" or "pro"`);
    out.defaultMode = v.defaultMode;
  }
  if (v.upstreamModel !== undefined) {
    if (typeof v.upstreamModel !== 'string' || v.upstreamModel === '')
      throw new Error(`${where}.upstreamModel must be a non-empty string`);
    out.upstreamModel = v.upstreamModel;
  }
  if (v.resolutions !== undefined) {
    if (
      !Array.isArray(v.resolutions) ||
      v.resolutions.length === 0 ||
      !v.resolutions.every((r) => RESOLUTIONS.includes(r))
    )
      throw new Error(`${where}.resolutions must be a non-empty array of ${RESOLUTIONS.join(', ')}`);
    out.resolutions = [...new Set(v.resolutions as string[])];
  }
  if (v.maxShots !== undefined) {
    if (typeof v.maxShots !== 'number' || !Number.isInteger(v.maxShots) || v.maxShots < 1 || v.maxShots > 6)
      throw new Error(`${where}.maxShots must be an integer from 1 to 6`);
    out.maxShots = v.maxShots;
  }
  if (out.fields.includes('resolution') !== (out.resolutions !== undefined))
    throw new Error(`${where}.resolutions must be given exactly when fields has "resolution"`);
  for (const k of ['aspectRatioRequired', 'sendModelName'] as const) {
    if (v[k] === undefined) continue;
    if (typeof v[k] !== 'boolean') throw new Error(`${where}.${k} must be a boolean`);
    out[k] = v[k];
  }
  return out;
}

/**
 * Check a model's `vidx` data from the catalogue file: `{"<path>": {endpoint, fields?, durations?, mediaDurations?,
 * defaultMode?, aspectRatioRequired?, sendModelName?, upstreamModel?, resolutions?, maxShots?}}`. Fields left out take the text2video defaults; `{}` serves
 * the model on no path. Throws a message naming the bad field.
 */
export function validateVidxEndpoints(model: string, v: unknown): Partial<Record<VidxPath, VidxEndpoint>> {
  if (!isObject(v)) throw new Error(`${model}: vidx must be an object keyed by path (${VIDX_PATHS.join(', ')})`);
  const out: Partial<Record<VidxPath, VidxEndpoint>> = {};
  for (const [k, rules] of Object.entries(v)) {
    if (!(VIDX_PATHS as readonly string[]).includes(k))
      throw new Error(`${model}: vidx.${k} is not a family A path (${VIDX_PATHS.join(', ')})`);
    out[k as VidxPath] = endpointRules(k as VidxPath, rules, `${model}: vidx.${k}`);
  }
  return out;
}
