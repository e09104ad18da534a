// Price rules: Usage × catalogue Price → Charge. Pure functions, integer micro-units only
// (1 unit = 1,000,000 micro-units). Rounding happens once per charge, upwards, in BigInt.
import type { ModelEntry, Price, TokenPriceTier } from '../catalogue/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Charge, Usage } from '../metering/types.ts';
import { asVideoPrice, priceVideo, type VideoDefaults } from './video-price.ts';

export const MICRO_PER_UNIT = 1_000_000;

/** ceil(a * b / d) in exact integer arithmetic (BigInt: no float drift in money). */
export function mulDivCeil(a: number, b: number, d: number): number {
  return ceilDiv(BigInt(a) * BigInt(b), d);
}

function ceilDiv(n: bigint, d: number): number {
  const D = BigInt(d);
  return Number((n + D - 1n) / D);
}

/**
 * ceil((a·b + c·d + e·f + g·h) / div), exact, for non-negative integers. In plain numbers when the sum is a safe
 * integer — then every product and partial sum is exact too, since none exceeds the sum (any realistic call:
 * millions of tokens times rates in micro-units) — so the text hot path allocates no BigInts; BigInt otherwise.
 */
function productsCeil(
  a: number,
  b: number,
  c: number,
  d: number,
  e: number,
  f: number,
  g: number,
  h: number,
  div: number,
): number {
  const n = a * b + c * d + e * f + g * h;
  if (!Number.isSafeInteger(n))
    return ceilDiv(BigInt(a) * BigInt(b) + BigInt(c) * BigInt(d) + BigInt(e) * BigInt(f) + BigInt(g) * BigInt(h), div);
  // Integer division without trusting the float quotient's last bit: fix the remainder into [0, div).
  let q = Math.floor(n / div);
  let r = n - q * div;
  if (r < 0) {
    q -= 1;
    r += div;
  } else if (r >= div) {
    q += 1;
    r -= div;
  }
  return r > 0 ? q + 1 : q;
}

// One frozen unit-price object per price tier, the same for every call on that tier, so the SQLite ledger writer
// serialises it once (sqlite-row-writes.ts) instead of once per request. Checked against the tier's rates on
// every use, so a tier object changed in place can never be billed with stale rates.
const unitPriceCache = new WeakMap<
  TokenPriceTier,
  Readonly<Record<'input_per_1k' | 'output_per_1k' | 'cached_input_per_1k' | 'cache_creation_per_1k', number>>
>();
function tokenUnitPrices(
  tier: TokenPriceTier,
  cachedRate: number,
  creationRate: number,
): Readonly<Record<string, number>> {
  const u = unitPriceCache.get(tier);
  if (
    u &&
    u.input_per_1k === tier.inputPer1k &&
    u.output_per_1k === tier.outputPer1k &&
    u.cached_input_per_1k === cachedRate &&
    u.cache_creation_per_1k === creationRate
  )
    return u;
  const fresh = Object.freeze({
    input_per_1k: tier.inputPer1k,
    output_per_1k: tier.outputPer1k,
    cached_input_per_1k: cachedRate,
    cache_creation_per_1k: creationRate,
  });
  unitPriceCache.set(tier, fresh);
  return fresh;
}

/**
 * Context-length tier: the first tier whose inclusive `maxInputTokens` bound holds the request's total input.
 * "32K" in the contract is 32,000 (the catalogue's bounds are 32_000 / 128_000 / 256_000): 32,000 input tokens
 * are in the first tier, 32,001 in the second. Above the last bound the last tier applies.
 */
export function pickTier(tiers: TokenPriceTier[], inputTokens: number): TokenPriceTier {
  for (const t of tiers) if (t.maxInputTokens === null || inputTokens <= t.maxInputTokens) return t;
  return tiers[tiers.length - 1]!;
}

export type PriceDefaults = VideoDefaults;

/** Defaults a model's entry supplies when the usage does not name a tier. */
export function priceDefaultsOf(entry: ModelEntry): PriceDefaults {
  return {
    ...(entry.video ? { defaultResolution: entry.video.defaultResolution } : {}),
    // Family A: mode defaults to std, except omni-video whose upstream default is pro.
    defaultMode: entry.kind === 'vidx-omni' ? 'pro' : 'std',
  };
}

function checkCount(v: number | undefined, name: string, integer: boolean): number {
  const n = v ?? 0;
  if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) {
    throw new GatewayError(
      'internal_error',
      `metering: ${name} must be a non-negative ${integer ? 'integer' : 'number'}, got ${String(v)}`,
    );
  }
  return n;
}

function unitMismatch(price: Price, kind: Usage['kind']): GatewayError {
  return new GatewayError('internal_error', `metering: a ${price.unit} price cannot meter ${kind} usage`);
}

/** True when the usage has something to charge (a failed image call, 0 images, writes nothing). */
export function isBillable(usage: Usage): boolean {
  switch (usage.kind) {
    case 'tokens':
      return usage.inputTokens > 0 || usage.outputTokens > 0;
    case 'images':
      return usage.images > 0;
    case 'video':
    case 'video-mode':
      return usage.outputSeconds > 0 || (usage.inputSeconds ?? 0) > 0;
  }
}

export function priceUsage(price: Price, usage: Usage, defaults: PriceDefaults = {}): Charge {
  switch (usage.kind) {
    case 'tokens': {
      if (price.unit !== 'tokens') throw unitMismatch(price, usage.kind);
      const input = checkCount(usage.inputTokens, 'inputTokens', true);
      const output = checkCount(usage.outputTokens, 'outputTokens', true);
      const tier = pickTier(price.tiers, input);
      // Cached and cache-creation tokens are part of the input total; never count more than it holds.
      const cached = Math.min(checkCount(usage.cachedTokens, 'cachedTokens', true), input);
      const creation = Math.min(checkCount(usage.cacheCreationTokens, 'cacheCreationTokens', true), input - cached);
      const plain = input - cached - creation;
      const cachedRate = tier.cachedInputPer1k ?? tier.inputPer1k;
      const creationRate = tier.cacheCreationPer1k ?? tier.inputPer1k;
      return {
        amount: productsCeil(
          plain,
          tier.inputPer1k,
          cached,
          cachedRate,
          creation,
          creationRate,
          output,
          tier.outputPer1k,
          1000,
        ),
        quantities: {
          input_tokens: input,
          output_tokens: output,
          cached_tokens: cached,
          cache_creation_tokens: creation,
          tier_max_input_tokens: tier.maxInputTokens,
        },
        unitPrices: tokenUnitPrices(tier, cachedRate, creationRate),
      };
    }
    case 'images': {
      if (price.unit !== 'image') throw unitMismatch(price, usage.kind);
      const images = checkCount(usage.images, 'images', true);
      return {
        amount: mulDivCeil(images, price.perImage, 1),
        quantities: { images },
        unitPrices: { per_image: price.perImage },
      };
    }
    case 'video':
    case 'video-mode': {
      const video = asVideoPrice(price);
      if (!video) throw unitMismatch(price, usage.kind);
      return priceVideo(video, usage, defaults);
    }
  }
}

/**
 * The largest amount one charge may carry (1e9 units): sums of charges in `spent` stay exact integers in JS numbers
 * and in a bigint column. A charge above it (absurd reported usage) is clamped, and the clamp is recorded in its
 * quantities (`clamped_from`) so the meter reports it.
 */
export const MAX_CHARGE = 1_000_000_000_000_000;

/** Price usage against a catalogue entry (its tier defaults applied). */
export function priceForEntry(entry: ModelEntry, usage: Usage): Charge {
  const c = priceUsage(entry.price, usage, priceDefaultsOf(entry));
  if (c.amount <= MAX_CHARGE) return c;
  return {
    amount: MAX_CHARGE,
    quantities: { ...c.quantities, clamped_from: String(c.amount) },
    unitPrices: c.unitPrices,
  };
}

/** Was this charge clamped to MAX_CHARGE? */
export const isClamped = (c: Charge): boolean => c.quantities.clamped_from !== undefined;

/** Micro-units as a decimal string of units, exactly (1234567 → "1.234567"). */
export function formatUnits(micro: number | bigint | string): string {
  const v = BigInt(micro);
  const neg = v < 0n;
  const abs = neg ? -v : v;
  const whole = abs / BigInt(MICRO_PER_UNIT);
  const frac = (abs % BigInt(MICRO_PER_UNIT)).toString().padStart(6, '0');
  return `${neg ? '-' : ''}${whole}.${frac}`;
}
