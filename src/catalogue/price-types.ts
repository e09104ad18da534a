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
