import type { Price, TokenPriceTier } from '../catalogue/types.ts';
import type { Charge, Usage } from './types.ts';

/** ceil(a * b / d) in exact integer arithmetic (BigInt: no float drift in money). */
export function mulDivCeil(a: number, b: number, d: number): number {
  const n = BigInt(a) * BigInt(b);
  const D = BigInt(d);
  return Number((n + D - 1n) / D);
}

export function pickTier(tiers: TokenPriceTier[], inputTokens: number): TokenPriceTier {
  for (const t of tiers) if (t.maxInputTokens === null || inputTokens <= t.maxInputTokens) return t;
  return tiers[tiers.length - 1]!;
}

/** Seconds as integer milliseconds (providers report floats such as 13.24). */
const ms = (seconds: number) => Math.round(seconds * 1000);

export function priceUsage(price: Price, usage: Usage): Charge {
  switch (usage.kind) {
    case 'tokens': {
      if (price.unit !== 'tokens') throw new Error(`price unit ${price.unit} cannot meter tokens`);
      const tier = pickTier(price.tiers, usage.inputTokens);
      const cached = Math.min(usage.cachedTokens ?? 0, usage.inputTokens);
      const creation = Math.min(usage.cacheCreationTokens ?? 0, usage.inputTokens - cached);
      const plain = usage.inputTokens - cached - creation;
      const cachedRate = tier.cachedInputPer1k ?? tier.inputPer1k;
      const creationRate = tier.cacheCreationPer1k ?? tier.inputPer1k;
      const amount = mulDivCeil(plain, tier.inputPer1k, 1000) + mulDivCeil(cached, cachedRate, 1000) + mulDivCeil(creation, creationRate, 1000) + mulDivCeil(usage.outputTokens, tier.outputPer1k, 1000);
      return {
        amount,
        quantities: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, cached_tokens: cached, cache_creation_tokens: creation, tier_max_input_tokens: tier.maxInputTokens },
        unitPrices: { input_per_1k: tier.inputPer1k, output_per_1k: tier.outputPer1k, cached_input_per_1k: cachedRate, cache_creation_per_1k: creationRate },
      };
    }
    case 'images': {
      if (price.unit !== 'image') throw new Error(`price unit ${price.unit} cannot meter images`);
      return { amount: usage.images * price.perImage, quantities: { images: usage.images }, unitPrices: { per_image: price.perImage } };
    }
    case 'video': {
      if (price.unit !== 'video-second') throw new Error(`price unit ${price.unit} cannot meter video seconds`);
      const rate = price.perSecond[usage.tier];
      const billedMs = price.basis === 'input+output' ? ms(usage.outputSeconds) + ms(usage.inputSeconds ?? 0) : ms(usage.outputSeconds);
      return {
        amount: mulDivCeil(billedMs, rate, 1000),
        quantities: { output_seconds: usage.outputSeconds, input_seconds: usage.inputSeconds ?? 0, billed_seconds: billedMs / 1000, tier: usage.tier, basis: price.basis },
        unitPrices: { per_second: rate },
      };
    }
    case 'video-mode': {
      if (price.unit !== 'video-mode-second') throw new Error(`price unit ${price.unit} cannot meter mode seconds`);
      const rate = price.perSecond[usage.tier];
      return {
        amount: mulDivCeil(ms(usage.outputSeconds), rate, 1000),
        quantities: { output_seconds: usage.outputSeconds, tier: usage.tier },
        unitPrices: { per_second: rate },
      };
    }
  }
}
