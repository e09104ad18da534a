import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Catalogue } from '../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import { formatUnits, isBillable, mulDivCeil, priceForEntry, priceUsage } from '../../src/pricing/prices.ts';
import type { Price } from '../../src/catalogue/types.ts';
import type { Usage } from '../../src/metering/types.ts';

const cat = new Catalogue(DEFAULT_CATALOGUE);

/** Price through the catalogue exactly as the routes do: public name → resolve → billing model's entry. */
function price(publicName: string, usage: Usage) {
  const r = cat.resolve(publicName);
  if (!r) throw new Error(`unknown ${publicName}`);
  const entry = cat.get(r.billingModel)!;
  return priceForEntry(entry, usage);
}

const tok = (
  inputTokens: number,
  outputTokens = 0,
  extra: Partial<Extract<Usage, { kind: 'tokens' }>> = {},
): Usage => ({
  kind: 'tokens',
  inputTokens,
  outputTokens,
  ...extra,
});

describe('token prices', () => {
  it('qwx3-vl-plus: "32K" means 32,000 — exactly 32,000 input tokens is the first tier, 32,001 the second', () => {
    const a = price('qwx3-vl-plus', tok(32_000));
    expect(a.quantities.tier_max_input_tokens).toBe(32_000);
    expect(a.amount).toBe(32_000); // 32,000 × 1,000 µ / 1K
    const b = price('qwx3-vl-plus', tok(32_001));
    expect(b.quantities.tier_max_input_tokens).toBe(128_000);
    expect(b.amount).toBe(48_002); // 32,001 × 1,500 / 1,000 = 48,001.5 → rounded up once
  });

  it('qwx3-vl-plus: 128,000 is the second tier, 128,001 the third; above 256K stays in the last tier', () => {
    expect(price('qwx3-vl-plus', tok(128_000)).amount).toBe(192_000);
    const c = price('qwx3-vl-plus', tok(128_001));
    expect(c.quantities.tier_max_input_tokens).toBe(256_000);
    expect(c.amount).toBe(384_003);
    expect(price('qwx3-vl-plus', tok(256_000)).quantities.tier_max_input_tokens).toBe(256_000);
    expect(price('qwx3-vl-plus', tok(300_000)).quantities.tier_max_input_tokens).toBe(256_000);
  });

  it('the tier is chosen by input tokens and applies to output too', () => {
    // 40,000 in (tier 2: 1,500 in, 15,000 out) + 1,000 out
    expect(price('qwx3-vl-plus', tok(40_000, 1_000)).amount).toBe(60_000 + 15_000);
    expect(price('qwx3-vl-plus', tok(1_000, 1_000)).amount).toBe(1_000 + 10_000);
  });

  it('cached tokens (counted within the input) bill at the cached rate', () => {
    // qwx3.7-plus: input 800, output 2,000, cached 160 per 1K. 971 plain + 2,048 cached + 104 out.
    const c = price('qwx3.7-plus', tok(3019, 104, { cachedTokens: 2048 }));
    expect(c.amount).toBe(Math.ceil((971 * 800 + 2048 * 160 + 104 * 2000) / 1000)); // 1,313
    expect(c.amount).toBe(1313);
    expect(c.quantities).toMatchObject({ input_tokens: 3019, cached_tokens: 2048, output_tokens: 104 });
    expect(c.unitPrices).toMatchObject({ cached_input_per_1k: 160 });
  });

  it('cache-creation tokens bill at the creation rate; cached + creation never exceed the input', () => {
    const c = price('qwx3.7-plus', tok(5000, 0, { cachedTokens: 2000, cacheCreationTokens: 1000 }));
    expect(c.amount).toBe((2000 * 800 + 2000 * 160 + 1000 * 1000) / 1000); // 2,920
    const clamped = price('qwx3.7-plus', tok(1000, 0, { cachedTokens: 5000, cacheCreationTokens: 5000 }));
    expect(clamped.quantities).toMatchObject({ cached_tokens: 1000, cache_creation_tokens: 0 });
    expect(clamped.amount).toBe(160);
  });

  it('a tier without a cached rate bills cached tokens at the input rate', () => {
    // text-embedding-v4: 500 per 1K, no cached price.
    expect(price('text-embedding-v4', tok(1000, 0, { cachedTokens: 400 })).amount).toBe(500);
    expect(price('text-embedding-v4', tok(12)).amount).toBe(6);
  });

  it('rounds once per charge, upwards: 1 token is not free', () => {
    expect(price('text-embedding-v4', tok(1)).amount).toBe(1);
    expect(price('qwx3.7-plus', tok(1, 1)).amount).toBe(Math.ceil((800 + 2000) / 1000));
  });

  it('refuses non-integer or negative token counts', () => {
    expect(() => price('qwx3.7-plus', tok(1.5))).toThrow(/non-negative integer/);
    expect(() => price('qwx3.7-plus', tok(-1))).toThrow(/non-negative integer/);
  });
});

describe('image prices', () => {
  it('per successful image; 0 images is not billable', () => {
    expect(price('qwx-image-2.0-pro', { kind: 'images', images: 3 }).amount).toBe(1_500_000);
    expect(price('qwx-image-2.0', { kind: 'images', images: 1 }).amount).toBe(200_000);
    expect(isBillable({ kind: 'images', images: 0 })).toBe(false);
    expect(isBillable({ kind: 'images', images: 1 })).toBe(true);
  });

  it('a unit mismatch is an internal error, not a silent zero', () => {
    expect(() => price('qwx-image-2.0', tok(10))).toThrow(/cannot meter/);
  });
});

describe('video prices (/v1/videos)', () => {
  it('per output second by resolution tier', () => {
    expect(price('hhx-1.1-t2v', { kind: 'video', outputSeconds: 5, tier: '1080p' }).amount).toBe(8_000_000);
    expect(price('hhx-1.1-t2v', { kind: 'video', outputSeconds: 5, tier: '720p' }).amount).toBe(4_500_000);
    expect(price('wnx2.7-r2v', { kind: 'video', outputSeconds: 10, tier: '1080p' }).amount).toBe(10_000_000);
  });

  it('hhx-1.1 without a tier bills at its default 1080p; hhx-1.0-i2v defaults to 720p', () => {
    const c = price('hhx-1.1-i2v', { kind: 'video', outputSeconds: 5 });
    expect(c.quantities.tier).toBe('1080p');
    expect(c.amount).toBe(8_000_000);
    expect(price('hhx-1.0-i2v', { kind: 'video', outputSeconds: 5 }).amount).toBe(4_500_000);
  });

  it('fractional seconds bill by the millisecond, without float drift', () => {
    expect(price('wnx2.7-t2v', { kind: 'video', outputSeconds: 0.1 + 0.2, tier: '1080p' }).amount).toBe(300_000);
    expect(price('wnx2.7-t2v', { kind: 'video', outputSeconds: 5.25, tier: '720p' }).amount).toBe(3_150_000);
    // Reported seconds are taken to the nearest millisecond first: 5.0005 s → 5.001 s.
    expect(price('wnx2.7-t2v', { kind: 'video', outputSeconds: 5.0005, tier: '720p' }).amount).toBe(3_000_600);
  });

  it('hhx-1.0-video-edit bills input plus output seconds (6.62 + 6.62 = 13.24 s)', () => {
    const c = price('hhx-1.0-video-edit', { kind: 'video', inputSeconds: 6.62, outputSeconds: 6.62, tier: '720p' });
    expect(c.quantities).toMatchObject({ billed_seconds: 13.24, basis: 'input+output' });
    expect(c.amount).toBe(11_916_000); // 13.24 × 900,000
    expect(
      price('hhx-1.0-video-edit', { kind: 'video', inputSeconds: 6.62, outputSeconds: 6.62, tier: '1080p' }).amount,
    ).toBe(21_184_000);
    // No tier → the model's default (720p).
    expect(price('hhx-1.0-video-edit', { kind: 'video', inputSeconds: 6.62, outputSeconds: 6.62 }).amount).toBe(
      11_916_000,
    );
  });

  it('output-only models ignore reported input seconds', () => {
    expect(price('hhx-1.1-r2v', { kind: 'video', inputSeconds: 7, outputSeconds: 5, tier: '1080p' }).amount).toBe(
      8_000_000,
    );
  });

  it('dated snapshots bill as their base model at the same tiers', () => {
    for (const name of ['wnx2.7-t2v-20260101', 'wnx2.7-t2v-2026-01-01', 'wnx2.7-i2v-20251231']) {
      const r = cat.resolve(name)!;
      expect(r.publicName).toBe(name);
      expect(r.billingModel).toBe(name.startsWith('wnx2.7-t2v') ? 'wnx2.7-t2v' : 'wnx2.7-i2v');
      expect(price(name, { kind: 'video', outputSeconds: 5, tier: '720p' }).amount).toBe(3_000_000);
      expect(price(name, { kind: 'video', outputSeconds: 5, tier: '1080p' }).amount).toBe(5_000_000);
    }
    expect(cat.resolve('wnx2.7-r2v-20260101')).toBeNull();
  });
});

describe('mode prices (family A)', () => {
  it('per output second by std / pro', () => {
    expect(price('vidx-v2-6', { kind: 'video-mode', outputSeconds: 5, tier: 'std' }).amount).toBe(1_250_000);
    expect(price('vidx-v2-6', { kind: 'video-mode', outputSeconds: 5, tier: 'pro' }).amount).toBe(2_500_000);
    expect(price('vidx-v2-6', { kind: 'video-mode', outputSeconds: 5.1, tier: 'std' }).amount).toBe(1_275_000);
  });

  it('default mode: std, and pro for omni-video', () => {
    expect(price('vidx-v1', { kind: 'video-mode', outputSeconds: 10 }).amount).toBe(1_400_000);
    expect(price('vidx-v3-omni', { kind: 'video-mode', outputSeconds: 5 }).amount).toBe(3_000_000);
  });

  it('the alias vidx-v2-5 bills as vidx-v2-5-turbo; the multi-element edit model has its own price', () => {
    expect(price('vidx-v2-5', { kind: 'video-mode', outputSeconds: 5, tier: 'pro' }).amount).toBe(2_500_000);
    expect(price('vidx-v1-6-multi-elements', { kind: 'video-mode', outputSeconds: 5, tier: 'std' }).amount).toBe(
      1_400_000,
    );
  });
});

describe('helpers', () => {
  it('formats micro-units as exact unit strings', () => {
    expect(formatUnits(0)).toBe('0.000000');
    expect(formatUnits(1_234_567)).toBe('1.234567');
    expect(formatUnits(11_916_000)).toBe('11.916000');
    expect(formatUnits(Number.MAX_SAFE_INTEGER)).toBe('9007199254.740991');
  });

  it('mulDivCeil is exact beyond 2^53 intermediates', () => {
    expect(mulDivCeil(9_007_199_254, 1_000_001, 1000)).toBe(9_007_208_261_200); // 9,007,208,261,199,254 / 1000, rounded up
    expect(mulDivCeil(3, 1, 2)).toBe(2);
  });
});

describe('token amounts are exact at every size', () => {
  // The reference: the same formula in BigInt only.
  const reference = (
    plain: number,
    cached: number,
    creation: number,
    output: number,
    t: { i: number; o: number; c: number; w: number },
  ) => {
    const n =
      BigInt(plain) * BigInt(t.i) +
      BigInt(cached) * BigInt(t.c) +
      BigInt(creation) * BigInt(t.w) +
      BigInt(output) * BigInt(t.o);
    return Number((n + 999n) / 1000n);
  };
  const count = fc.oneof(
    fc.integer({ min: 0, max: 2_000 }),
    fc.integer({ min: 0, max: 2 ** 40 }),
    fc.constantFrom(0, 1, 999, 1_000, 1_001, 2 ** 43),
  );
  const rate = fc.oneof(
    fc.integer({ min: 0, max: 100_000 }),
    fc.integer({ min: 0, max: 2 ** 30 }),
    fc.constantFrom(1, 999, 1_000, 1_001),
  );

  it('equals the BigInt reference, below and above 2^53 (plain numbers must fall back, never round)', () => {
    fc.assert(
      fc.property(
        count,
        count,
        count,
        count,
        rate,
        rate,
        rate,
        rate,
        (input, cachedIn, creationIn, output, i, o, c, w) => {
          const price: Price = {
            unit: 'tokens',
            tiers: [
              { maxInputTokens: null, inputPer1k: i, outputPer1k: o, cachedInputPer1k: c, cacheCreationPer1k: w },
            ],
          };
          const cached = Math.min(cachedIn, input);
          const creation = Math.min(creationIn, input - cached);
          const got = priceUsage(price, {
            kind: 'tokens',
            inputTokens: input,
            outputTokens: output,
            cachedTokens: cachedIn,
            cacheCreationTokens: creationIn,
          });
          expect(got.amount).toBe(reference(input - cached - creation, cached, creation, output, { i, o, c, w }));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('rounds up once across every boundary of the division', () => {
    const price: Price = { unit: 'tokens', tiers: [{ maxInputTokens: null, inputPer1k: 1, outputPer1k: 1 }] };
    // Sums of 2^53 - 1 (the largest exact number) and just past it take the two different paths.
    for (const input of [0, 1, 999, 1_000, 1_001, 2 ** 53 - 1, 2 ** 53 + 2]) {
      expect(priceUsage(price, tok(input)).amount).toBe(reference(input, 0, 0, 0, { i: 1, o: 1, c: 1, w: 1 }));
    }
  });

  it("gives one frozen unit-price object per tier, and a fresh one when the tier's rates change", () => {
    const tier = {
      maxInputTokens: null,
      inputPer1k: 800,
      outputPer1k: 2_000,
      cachedInputPer1k: 160,
      cacheCreationPer1k: 1_000,
    };
    const price: Price = { unit: 'tokens', tiers: [tier] };
    const a = priceUsage(price, tok(10, 5)).unitPrices;
    expect(Object.isFrozen(a)).toBe(true);
    expect(priceUsage(price, tok(99, 1)).unitPrices).toBe(a);
    tier.inputPer1k = 900;
    const b = priceUsage(price, tok(10, 5));
    expect(b.unitPrices).toEqual({
      input_per_1k: 900,
      output_per_1k: 2_000,
      cached_input_per_1k: 160,
      cache_creation_per_1k: 1_000,
    });
    expect(b.amount).toBe(Math.ceil((10 * 900 + 5 * 2_000) / 1000));
  });
});
