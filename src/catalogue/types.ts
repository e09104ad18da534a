import type { ChannelKind } from '../store/repos/channels.ts';
import type { Price } from './price-types.ts';

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

export type { Price, TokenPriceTier } from './price-types.ts';

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
  /** The `duration` sent upstream when the request names none, where it differs from defaultSeconds (0: the source video's own length). */
  upstreamDefaultDuration?: number;
  defaultResolution: '720p' | '1080p';
  seed: boolean;
  refs: VideoRefRule;
  maxReferenceImages?: number;
  /** Upstream parameters this model takes (HappyHorse edit takes no ratio/duration). */
  ratio: boolean;
  duration: boolean;
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
