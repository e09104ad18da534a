// Re-pricing a ledger line: its stored usage (what the upstream reported, kept with the request or task) at the
// line's own unit prices, so a price changed since does not count as a difference; and a charge cut for want of room
// told from one that prices differently.
import type { Price } from '../catalogue/types.ts';
import { isObject } from '../json/json.ts';
import type { Usage } from '../metering/types.ts';
import { PPM } from '../pricing/price-groups.ts';
import { MAX_CHARGE, mulDivCeil, priceUsage } from '../pricing/prices.ts';
import { videoPriceOfLine } from '../pricing/video-price.ts';

export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
export const parse = (s: string | null): Record<string, unknown> | null => {
  if (s === null) return null;
  try {
    const v: unknown = JSON.parse(s);
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
};

/** The stored usage as metering usage, for the ledger row's kind. */
function usageOf(kind: string, stored: Record<string, unknown>): Usage | null {
  if (kind === 'tokens')
    return {
      kind,
      inputTokens: num(stored.input_tokens),
      outputTokens: num(stored.output_tokens),
      cachedTokens: num(stored.cached_tokens),
      cacheCreationTokens: num(stored.cache_creation_tokens),
    };
  if (kind === 'images') return { kind, images: num(stored.images) };
  if (kind === 'video' || kind === 'video-mode') return stored.kind === kind ? (stored as unknown as Usage) : null;
  return null;
}

/** The ledger row's own unit prices as a price, so a price changed since does not count as a difference. */
function priceOf(kind: string, unit: Record<string, unknown>, q: Record<string, unknown>): Price | null {
  if (kind === 'tokens')
    return {
      unit: 'tokens',
      tiers: [
        {
          maxInputTokens: null,
          inputPer1k: num(unit.input_per_1k),
          outputPer1k: num(unit.output_per_1k),
          cachedInputPer1k: num(unit.cached_input_per_1k),
          cacheCreationPer1k: num(unit.cache_creation_per_1k),
        },
      ],
    };
  if (kind === 'images') return { unit: 'image', perImage: num(unit.per_image) };
  if (kind === 'video' || kind === 'video-mode') return videoPriceOfLine(unit, q);
  return null;
}

export function reprice(
  kind: string,
  stored: Record<string, unknown> | null,
  unitPrices: string,
  quantities: string,
): number | null {
  if (!stored) return null;
  const usage = usageOf(kind, stored);
  const price = priceOf(kind, parse(unitPrices) ?? {}, parse(quantities) ?? {});
  if (!usage || !price) return null;
  try {
    const list = Math.min(priceUsage(price, usage).amount, MAX_CHARGE);
    // A price group's multiplier is recorded with the list unit prices: the charge is the list amount times it.
    const m = parse(unitPrices)?.multiplier;
    return typeof m === 'number' ? Math.min(mulDivCeil(list, Math.round(m * PPM), PPM), MAX_CHARGE) : list;
  } catch {
    return null;
  }
}

/**
 * A charge written for less than it was priced at, for want of room (the balance bound, or a task's quota:
 * balance-bound.ts, metering/quota-room.ts): its quantities keep the amount it was priced at (`clamped_from`). When
 * that is at least what its stored usage prices at, the cut is recognised: the charge is what it should be.
 */
export function cutAt(amount: number, quantities: string, expected: number | null): number | null {
  if (expected === null || amount >= expected) return expected;
  const from = Number(parse(quantities)?.clamped_from);
  return Number.isFinite(from) && from >= expected ? amount : expected;
}
