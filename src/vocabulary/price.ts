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

export type Price =
  | { unit: 'tokens'; tiers: TokenPriceTier[] }
  | { unit: 'image'; perImage: number }
  | { unit: 'video-second'; perSecond: { '720p': number; '1080p': number }; basis: 'output' | 'input+output' }
  | { unit: 'video-mode-second'; perSecond: { std: number; pro: number } };

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
