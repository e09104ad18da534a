// A model's price as stored and served: types only, importing nothing, so the operator console
// (console/src/price-text.ts) reads the same shape the server writes.

/** Integer micro-units per 1K tokens. */
export interface TokenPriceTier {
  /** Inclusive upper bound of input tokens for this tier; null = no bound. */
  maxInputTokens: number | null;
  inputPer1k: number;
  outputPer1k: number;
  cachedInputPer1k?: number;
  cacheCreationPer1k?: number;
}

/**
 * A video price: every dimension an upstream charges a video by, integer micro-units. One output second costs the
 * rate of its tier — looked up as "<mode>/<resolution>", then the resolution, then the mode, then the nearest
 * resolution the price names (above, else below) — plus the sound and voice surcharges when the task has them.
 * Input video seconds cost `inputPerSecond` (and the tier's rate too with basis `input+output`, as edits bill);
 * `perShot` is charged per shot of a multi-shot task, `perRun` once per task.
 */
export interface VideoPrice {
  unit: 'video';
  /** Per output second, by tier: a resolution (480p, 720p, 1080p, 2k, 4k), a mode (std, pro), or "pro/1080p". */
  perSecond: Readonly<Record<string, number>>;
  soundPerSecond?: number;
  voicePerSecond?: number;
  inputPerSecond?: number;
  basis?: 'output' | 'input+output';
  perShot?: number;
  perRun?: number;
}

/** The two video shapes of before VideoPrice: still read, stored and charged as they always were (video-price.ts). */
export type LegacyVideoPrice =
  | { unit: 'video-second'; perSecond: { '720p': number; '1080p': number }; basis: 'output' | 'input+output' }
  | { unit: 'video-mode-second'; perSecond: { std: number; pro: number } };

export type Price =
  | { unit: 'tokens'; tiers: TokenPriceTier[] }
  | { unit: 'image'; perImage: number }
  | VideoPrice
  | LegacyVideoPrice;

/** A price group: the prices an account in it is charged (pricing/price-groups.ts). */
export interface PriceGroup {
  name: string;
  /** The multiplier of list prices in parts per million (1,000,000 = list price). */
  multiplierPpm: number;
  /** Prices set outright for models (billing model ids); the multiplier does not apply to them. */
  prices: Readonly<Record<string, Price>>;
  createdAt: number;
  updatedAt: number;
}

/**
 * What an upstream charges us on one channel, as the operator states it (micro-units): per unit of the upstream's
 * own deduction (Kling `final_unit_deduction`) or per second of video. `price_ratio` is what our list price is meant
 * to be over that cost (1.5: half again), `tolerance` how far (a fraction) a task's ratio may stray from it before
 * `tollway reconcile` flags it (default 0.1).
 */
export interface ChannelCost {
  per_unit?: number;
  per_second?: number;
  price_ratio?: number;
  tolerance?: number;
}
