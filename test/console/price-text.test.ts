// The console's price form: units typed by the operator become exact micro-units (no floating point), a price's
// amounts become fields and come back into the same price shape (tiers, bounds and basis kept), and prices read as
// text.
import { describe, expect, it } from 'vitest';
import { fromMicro, priceFields, priceLines, toMicro, withAmounts, type Price } from '../../console/src/price-text.ts';

describe('console price text', () => {
  it('converts units to micro-units exactly and back', () => {
    expect(toMicro('0.3')).toBe(300_000);
    expect(toMicro(' 1.000001 ')).toBe(1_000_001);
    // 1.005 * 1e6 is 1004999.9999999999 in floating point.
    expect(toMicro('1.005')).toBe(1_005_000);
    expect(toMicro('0.29')).toBe(290_000);
    expect(toMicro('1000000')).toBe(1_000_000_000_000);
    expect(toMicro('3.')).toBe(3_000_000);
    for (const bad of ['', '-1', '1e3', '0.0000001', 'abc', '1,5']) expect(toMicro(bad), bad).toBeNull();
    expect(fromMicro(290_000)).toBe('0.29');
    expect(fromMicro(1_000_001)).toBe('1.000001');
    expect(fromMicro(2_000_000)).toBe('2');
    expect(fromMicro(0)).toBe('0');
    expect(fromMicro(undefined)).toBe('');
  });

  it('edits a tiered token price field by field; an emptied optional rate is removed', () => {
    const p: Price = {
      unit: 'tokens',
      tiers: [
        { maxInputTokens: 32_000, inputPer1k: 1000, outputPer1k: 10_000, cachedInputPer1k: 200 },
        { maxInputTokens: null, inputPer1k: 1500, outputPer1k: 15_000 },
      ],
    };
    const fields = priceFields(p);
    expect(fields.map((f) => f.path)).toEqual([
      'tiers.0.inputPer1k',
      'tiers.0.outputPer1k',
      'tiers.0.cachedInputPer1k',
      'tiers.0.cacheCreationPer1k',
      'tiers.1.inputPer1k',
      'tiers.1.outputPer1k',
      'tiers.1.cachedInputPer1k',
      'tiers.1.cacheCreationPer1k',
    ]);
    expect(fields.map((f) => f.group)).toEqual([
      ...Array(4).fill('Up to 32,000 input tokens'),
      ...Array(4).fill('Above 32,000 input tokens'),
    ]);
    expect(fields.filter((f) => f.optional).map((f) => f.path)).toEqual([
      'tiers.0.cachedInputPer1k',
      'tiers.0.cacheCreationPer1k',
      'tiers.1.cachedInputPer1k',
      'tiers.1.cacheCreationPer1k',
    ]);
    expect(priceFields({ unit: 'tokens', tiers: [p.tiers[1]!] })[0]!.group).toBe('');
    const next = withAmounts(p, {
      'tiers.0.inputPer1k': 1100,
      'tiers.0.cachedInputPer1k': undefined,
      'tiers.1.cacheCreationPer1k': 1600,
    });
    expect(next).toEqual({
      unit: 'tokens',
      tiers: [
        { maxInputTokens: 32_000, inputPer1k: 1100, outputPer1k: 10_000 },
        { maxInputTokens: null, inputPer1k: 1500, outputPer1k: 15_000, cacheCreationPer1k: 1600 },
      ],
    });
    // The original is not changed.
    expect(p.tiers[0]!.inputPer1k).toBe(1000);
  });

  it("keeps a video price's basis and reads prices as text in units", () => {
    const v: Price = {
      unit: 'video-second',
      perSecond: { '720p': 600_000, '1080p': 1_000_000 },
      basis: 'input+output',
    };
    expect(withAmounts(v, { 'perSecond.720p': 700_000 })).toEqual({
      unit: 'video-second',
      perSecond: { '720p': 700_000, '1080p': 1_000_000 },
      basis: 'input+output',
    });
    expect(priceLines(v)).toEqual(['720p 0.60 · 1080p 1.00', '(input + output seconds)']);
    expect(priceLines({ unit: 'image', perImage: 250_000 })).toEqual(['0.25']);
    expect(
      priceLines({
        unit: 'tokens',
        tiers: [{ maxInputTokens: null, inputPer1k: 800, outputPer1k: 2000, cachedInputPer1k: 160 }],
      }),
    ).toEqual(['input 0.0008 · output 0.002 · cached 0.00016']);
    expect(priceLines(null)).toEqual(['none']);
  });
});
