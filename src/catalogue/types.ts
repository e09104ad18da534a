import type { ChannelKind } from '../adapters/upstream-kinds.ts';
import type { Price } from '../vocabulary/price.ts';

export type ModelKind =
  | 'chat' // text (and some multimodal) chat models
  | 'vision' // image-understanding chat models
  | 'embedding'
  | 'image' // image generation (and edit when capabilities.imageEdit)
  | 'image-edit' // edit-only image models
  | 'video' // family B /v1/videos models
  | 'vidx-video' // family A text2video
  | 'vidx-edit' // family A multi-element edit
  | 'vidx-omni'; // family A omni-video

export type { Price, TokenPriceTier } from '../vocabulary/price.ts';

export type VideoRefRule =
  | 'none' // text only
  | 'first-frame' // hhx-1.1-i2v / hhx-1.0-i2v: one image
  | 'reference-images' // hhx r2v: 1..9 images
  | 'wan-i2v' // first video → first_clip, first image → first_frame, later images → last_frame
  | 'wan-r2v' // videos → reference_video, images → reference_image
  | 'hhx-edit' // one source video + optional images
  | 'wan-edit'; // one source video + optional images

export interface VideoRules {
  minSeconds: number;
  maxSeconds: number;
  /** A lower maximum when the request carries a reference video (wan2.7-r2v: ≤ 10 s with a video, 15 without). */
  maxSecondsWithVideo?: number;
  /** Seconds held (and charged when nothing is reported) for a request that names none. */
  defaultSeconds: number;
  /**
   * The `duration` sent upstream when the request names none, where it differs from defaultSeconds (0: the source
   * video's own length).
   */
  upstreamDefaultDuration?: number;
  defaultResolution: '720p' | '1080p';
  seed: boolean;
  refs: VideoRefRule;
  maxReferenceImages?: number;
  /** Upstream parameters this model takes (HappyHorse edit takes no ratio/duration). */
  ratio: boolean;
  duration: boolean;
}

/**
 * A family A contract path (`POST /vidx/v1/videos/<path>`); the same names are the upstream's endpoints
 * (`POST /v1/videos/<endpoint>`), where a path's task is created, queried, listed and recovered.
 */
export type VidxPath = 'text2video' | 'omni-video' | 'multi-elements';
export const VIDX_PATHS: readonly VidxPath[] = ['text2video', 'omni-video', 'multi-elements'];

/** The family A request fields a model may or may not take, by model: catalogue data, checked before any hold. */
export type VidxField =
  | 'mode'
  | 'negative_prompt'
  | 'cfg_scale'
  | 'sound'
  | 'camera_control'
  | 'multi_shot'
  | 'resolution'
  | 'voice_list';
export const VIDX_FIELDS: readonly VidxField[] = [
  'mode',
  'negative_prompt',
  'cfg_scale',
  'sound',
  'camera_control',
  'multi_shot',
  'resolution',
  'voice_list',
];
/** The body keys each field stands for (`multi_shot` brings `shot_type` and `multi_prompt` with it). */
export const VIDX_FIELD_KEYS: Readonly<Record<VidxField, readonly string[]>> = {
  mode: ['mode'],
  negative_prompt: ['negative_prompt'],
  cfg_scale: ['cfg_scale'],
  sound: ['sound'],
  camera_control: ['camera_control'],
  multi_shot: ['multi_shot', 'shot_type', 'multi_prompt'],
  resolution: ['resolution'],
  voice_list: ['voice_list'],
};

/** How one family A model is served on one contract path. */
export interface VidxEndpoint {
  /** The upstream endpoint that serves it (o1 on text2video: omni-video, with a text-only omni body). */
  endpoint: VidxPath;
  /** The model-dependent fields it takes there; a client sending another is refused, naming the field. */
  fields: VidxField[];
  /** `duration` values taken ("5", "10" …). */
  durations: string[];
  /**
   * `duration` values when the body carries reference media (omni: images other than one first frame, videos,
   * elements).
   */
  mediaDurations?: string[];
  /** The mode when the request names none: the hold's tier (and the only tier of a model without `mode`). */
  defaultMode: 'std' | 'pro';
  /** The upstream requires `aspect_ratio` without a first frame: the gateway sends the contract default (16:9). */
  aspectRatioRequired?: boolean;
  /** `model_name` goes in the upstream body (default true; the multi-elements create body has none). */
  sendModelName?: boolean;
  /** The upstream model on this endpoint, where it differs from the entry's (kling-v3 on text2video, kling-v3-omni). */
  upstreamModel?: string;
  /** `resolution` values taken (with the `resolution` field): "720p", "1080p", "4k" … */
  resolutions?: string[];
  /** The most shots of a `multi_shot` task (default 6). */
  maxShots?: number;
}

export interface ModelEntry {
  /** Public name (what clients send). */
  id: string;
  kind: ModelKind;
  upstream: ChannelKind;
  /** Name sent to the upstream. */
  upstreamModel: string;
  ownedBy: string;
  price: Price;
  capabilities: {
    /** Chat model that takes image parts (routed to the multimodal path when not `vision`). */
    imageInput?: boolean;
    imageEdit?: boolean;
    imageGenerate?: boolean;
    maxEditImages?: number;
    maxN?: number;
    responses?: boolean;
    messages?: boolean;
  };
  video?: VideoRules;
  /** Dated-snapshot pattern: public names `${id}-<date>` resolve to this entry. */
  snapshots?: boolean;
  /** Historical names normalised to this one. */
  aliases?: string[];
  /** Listed in the catalogue but refused with a pointer elsewhere. */
  hidden?: boolean;
  /**
   * Family A: per contract path, the upstream endpoint serving the model and the fields it takes there. A path not
   * listed is not served (refused before any hold). Absent: the defaults of the model's kind (vidx-endpoints.ts).
   */
  vidx?: Partial<Record<VidxPath, VidxEndpoint>>;
}

/** What a public name resolved to: the entry plus the exact names to send and to show. */
export interface ResolvedModel {
  entry: ModelEntry;
  /** Canonical public name (aliases normalised; snapshots kept). */
  publicName: string;
  /** Upstream model name to send. */
  upstreamModel: string;
  /** Model whose price applies (a snapshot bills as its base). */
  billingModel: string;
}
