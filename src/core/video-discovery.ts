// Video model discovery (GET /v1/videos/models, and the `video` block of GET /v1/models/{id}): for each video model the
// caller may use, where it is served, the durations, resolutions, modes and fields it takes there — the catalogue's
// data, the same the request rules check — and its per-second prices for the caller's price group.
import type { ModelEntry } from '../catalogue/types.ts';
import { VIDX_PATHS } from '../catalogue/types.ts';
import { vidxEndpointOf } from '../catalogue/vidx-endpoints.ts';
import { PPM, type PriceGroups } from '../pricing/price-groups.ts';
import { mulDivCeil } from '../pricing/prices.ts';
import { asVideoPrice } from '../pricing/video-price.ts';
import type { VideoPrice } from '../vocabulary/price.ts';
import { principalOf, type HasState } from './call.ts';
import { listVisibleModels, type ModelAccessDeps } from './model-access.ts';

export interface VideoModelDeps extends ModelAccessDeps {
  readonly priceGroups: Pick<PriceGroups, 'get'>;
}

export interface VideoEndpointView {
  /** The path a task of this model is created on. */
  path: string;
  /** Seconds it takes (`seconds` on /v1, `duration` on family A); empty: the output follows its source video. */
  durations: number[];
  /** Further durations taken when the request carries reference media (family A omni-video). */
  media_durations?: number[];
  resolutions: string[];
  /** Family A modes (std, pro); empty on /v1. */
  modes: string[];
  /** The request fields the model takes there beyond the prompt. */
  fields: string[];
}

/** Per-second (and per-shot, per-run) amounts in micro-units, as the caller is charged them. */
export interface VideoPriceView {
  unit: 'micro-units (1 unit = 1,000,000)';
  per_second: Record<string, number>;
  sound_per_second?: number;
  voice_per_second?: number;
  input_per_second?: number;
  /** `input+output`: input seconds cost the tier rate too. */
  basis?: 'output' | 'input+output';
  per_shot?: number;
  per_run?: number;
  /** The caller's price group when it priced them (its own price, or the list price times its multiplier). */
  price_group: string | null;
}

export interface VideoView {
  endpoints: VideoEndpointView[];
  price: VideoPriceView;
}

const isVideo = (e: ModelEntry) => e.kind === 'video' || e.kind === 'vidx-video' || e.kind === 'vidx-omni';
const seconds = (ds: string[]) => ds.map(Number);
const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);

function endpointsOf(e: ModelEntry): VideoEndpointView[] {
  if (e.kind === 'video') {
    const v = e.video;
    if (!v) return [];
    const fields = ['model', 'prompt'];
    if (v.duration) fields.push('seconds');
    if (v.ratio) fields.push('size');
    fields.push('resolution');
    if (v.refs !== 'none') fields.push('input_reference');
    if (v.seed) fields.push('seed');
    return [
      {
        path: '/v1/videos',
        durations: v.duration ? range(v.minSeconds, v.maxSeconds) : [],
        resolutions: ['720p', '1080p'],
        modes: [],
        fields,
      },
    ];
  }
  return VIDX_PATHS.flatMap((path) => {
    const r = vidxEndpointOf(e, path);
    if (!r) return [];
    const out: VideoEndpointView = {
      path: `/vidx/v1/videos/${path}`,
      durations: seconds(r.durations),
      resolutions: r.resolutions ?? [],
      modes: r.fields.includes('mode') ? ['std', 'pro'] : [r.defaultMode],
      fields: ['model_name', 'prompt', 'duration', ...r.fields],
    };
    if (r.mediaDurations) out.media_durations = seconds(r.mediaDurations);
    return [out];
  });
}

/** The price the caller is charged: its group's own, else the list price times the group's multiplier. */
function priceFor(e: ModelEntry, groups: VideoModelDeps['priceGroups'], groupName: string | null): VideoPriceView {
  const group = groupName ? groups.get(groupName) : undefined;
  const own = group?.prices[e.id];
  const p: VideoPrice | null = asVideoPrice(own ?? e.price);
  const times = (n: number) => (group && !own ? mulDivCeil(n, group.multiplierPpm, PPM) : n);
  const out: VideoPriceView = {
    unit: 'micro-units (1 unit = 1,000,000)',
    per_second: {},
    price_group: group ? group.name : null,
  };
  if (!p) return out;
  for (const [k, v] of Object.entries(p.perSecond)) out.per_second[k] = times(v);
  if (p.soundPerSecond !== undefined) out.sound_per_second = times(p.soundPerSecond);
  if (p.voicePerSecond !== undefined) out.voice_per_second = times(p.voicePerSecond);
  if (p.inputPerSecond !== undefined) out.input_per_second = times(p.inputPerSecond);
  if (p.basis !== undefined) out.basis = p.basis;
  if (p.perShot !== undefined) out.per_shot = times(p.perShot);
  if (p.perRun !== undefined) out.per_run = times(p.perRun);
  return out;
}

/** A video model's discovery block for the caller; null for a model that is not a video model. */
export function videoViewOf(deps: VideoModelDeps, call: HasState, e: ModelEntry): VideoView | null {
  if (!isVideo(e)) return null;
  const group = principalOf(call).billing?.priceGroup ?? null;
  return { endpoints: endpointsOf(e), price: priceFor(e, deps.priceGroups, group) };
}

/** The video models the caller may use, each with its discovery block. */
export function visibleVideoModels(
  deps: VideoModelDeps,
  call: HasState,
): Array<{ entry: ModelEntry; video: VideoView }> {
  return listVisibleModels(deps, call).flatMap((entry) => {
    const video = videoViewOf(deps, call, entry);
    return video ? [{ entry, video }] : [];
  });
}
