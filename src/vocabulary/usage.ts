// What a price applies to: the quantities of one call or task. Types only, importing nothing, so adapters (which
// report usage) and metering (which prices it) share them without depending on each other.

export type VideoTier = '720p' | '1080p';
export type ModeTier = 'std' | 'pro';

/**
 * Provider-reported (or produced) quantities for one call or task.
 * - tokens: `inputTokens` is the TOTAL input (cached and cache-creation tokens are counted inside it, as in
 *   chat-style usage; a messages-style caller adds cache_read/cache_creation to input_tokens first). The
 *   context-length tier is chosen from this total.
 * - images: successful images only (0 → nothing is written).
 * - video: seconds as reported (floats allowed, billed by the millisecond); `inputSeconds` only counts for
 *   `input+output` edit models; `tier` defaults to the model's `video.defaultResolution`.
 * - video-mode: family A output seconds; `tier` defaults to std (pro for omni models, the upstream default).
 */
export type Usage =
  | { kind: 'tokens'; inputTokens: number; outputTokens: number; cachedTokens?: number; cacheCreationTokens?: number }
  | { kind: 'images'; images: number }
  | { kind: 'video'; outputSeconds: number; inputSeconds?: number; tier?: VideoTier }
  | { kind: 'video-mode'; outputSeconds: number; tier?: ModeTier };

export type TokenUsage = Extract<Usage, { kind: 'tokens' }>;
