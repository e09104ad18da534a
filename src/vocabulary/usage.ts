// What a price applies to: the quantities of one call or task. Types only, importing nothing, so adapters (which
// report usage) and metering (which prices it) share them without depending on each other.

/** An output resolution tier a video is priced by. */
export type VideoTier = '480p' | '720p' | '1080p' | '2k' | '4k';
export type ModeTier = 'std' | 'pro';

/**
 * What of a video task is priced beyond its seconds (absent: none). Taken from the request for the estimate and
 * kept on the task; the upstream's report replaces what it states (seconds, resolution, sound).
 */
export interface VideoExtras {
  /** Input video seconds (an edit's or motion control's source). */
  inputSeconds?: number;
  /** Made with sound (an audio track). */
  sound?: boolean;
  /** Spoken with a named voice. */
  voice?: boolean;
  /** Shots of a multi-shot task. */
  shots?: number;
  /** The output resolution of a task priced by mode too (family A: `tier` is then the mode). */
  resolution?: VideoTier;
  /** What the upstream deducted for the task, in its own units (Kling `final_unit_deduction`): not priced, kept. */
  upstreamUnits?: number;
}

/**
 * Provider-reported (or produced) quantities for one call or task.
 * - tokens: `inputTokens` is the TOTAL input (cached and cache-creation tokens are counted inside it, as in
 *   chat-style usage; a messages-style caller adds cache_read/cache_creation to input_tokens first). The
 *   context-length tier is chosen from this total.
 * - images: successful images only (0 → nothing is written).
 * - video: seconds as reported (floats allowed, billed by the millisecond); `tier` (a resolution) defaults to the
 *   model's `video.defaultResolution`.
 * - video-mode: family A output seconds; `tier` (the mode) defaults to std (pro for omni models, the upstream default).
 * Both video kinds carry the extras a video price may charge for (VideoExtras).
 */
export type Usage =
  | { kind: 'tokens'; inputTokens: number; outputTokens: number; cachedTokens?: number; cacheCreationTokens?: number }
  | { kind: 'images'; images: number }
  | ({ kind: 'video'; outputSeconds: number; tier?: VideoTier } & VideoExtras)
  | ({ kind: 'video-mode'; outputSeconds: number; tier?: ModeTier } & VideoExtras);

export type TokenUsage = Extract<Usage, { kind: 'tokens' }>;
export type VideoUsage = Extract<Usage, { kind: 'video' | 'video-mode' }>;
