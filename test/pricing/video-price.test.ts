// The one video price shape: its validation (each bad field named), its tier lookup and formula, the older shapes read
// as it with the same charges, and the catalogue file's new family A data checked before start.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import { readCatalogueFile } from '../../src/pricing/catalogue-source.ts';
import { validatePrice } from '../../src/pricing/price-validation.ts';
import { priceUsage } from '../../src/pricing/prices.ts';
import { priceVideo } from '../../src/pricing/video-price.ts';
import type { VideoPrice } from '../../src/vocabulary/price.ts';
import { tempDir } from '../support/temp-dir.ts';

const base = (id: string) => DEFAULT_CATALOGUE.find((e) => e.id === id)!;
const P: VideoPrice = {
  unit: 'video',
  perSecond: { std: 100, pro: 200, '720p': 300, '4k': 1000, 'pro/1080p': 250 },
  soundPerSecond: 50,
  voicePerSecond: 20,
  inputPerSecond: 7,
  perShot: 1000,
  perRun: 5,
};

describe('the video price', () => {
  it('validates every field, naming the bad one', () => {
    expect(validatePrice(P)).toEqual(P);
    for (const [price, param] of [
      [{ unit: 'video', perSecond: { '8k': 1 } }, 'price.perSecond.8k'],
      [{ unit: 'video', perSecond: { 'pro/std': 1 } }, 'price.perSecond.pro/std'],
      [{ unit: 'video', perSecond: {} }, 'price.perSecond'],
      [{ unit: 'video', perSecond: { std: 1 }, soundPerSecond: -1 }, 'price.soundPerSecond'],
      [{ unit: 'video', perSecond: { std: 1 }, perShot: 0.5 }, 'price.perShot'],
      [{ unit: 'video', perSecond: { std: 1 }, perMinute: 1 }, 'price.perMinute'],
      [{ unit: 'video', perSecond: { std: 1 }, basis: 'input' }, 'price.basis'],
    ] as const)
      expect(() => validatePrice(price), param).toThrow(expect.objectContaining({ code: 'invalid_parameter', param }));
  });

  it('a video model may take the video shape, and go back to the old shape its tiers name; other units stay', () => {
    expect(validatePrice({ unit: 'video', perSecond: { std: 1, pro: 2 } }, base('vidx-v1').price)).toMatchObject({
      unit: 'video',
    });
    // It must price every task of the model: both modes (family A), a resolution (/v1).
    expect(() => validatePrice({ unit: 'video', perSecond: { std: 1 } }, base('vidx-v1').price)).toThrow(
      expect.objectContaining({ param: 'price.perSecond.pro' }),
    );
    expect(() => validatePrice({ unit: 'video', perSecond: { std: 1, pro: 1 } }, base('hhx-1.1-t2v').price)).toThrow(
      expect.objectContaining({ param: 'price.perSecond' }),
    );
    const v26 = base('vidx-v2-6').price;
    expect(v26.unit).toBe('video');
    expect(validatePrice({ unit: 'video-mode-second', perSecond: { std: 1, pro: 2 } }, v26).unit).toBe(
      'video-mode-second',
    );
    expect(() =>
      validatePrice({ unit: 'video-second', perSecond: { '720p': 1, '1080p': 2 }, basis: 'output' }, v26),
    ).toThrow(expect.objectContaining({ param: 'price.unit' }));
    expect(() => validatePrice({ unit: 'video', perSecond: { std: 1 } }, base('qwx-image-2.0').price)).toThrow(
      expect.objectContaining({ param: 'price.unit' }),
    );
  });

  it('prices a second at mode/resolution, else resolution, else mode, else the nearest resolution', () => {
    const at = (tier: 'std' | 'pro', resolution?: '480p' | '720p' | '1080p' | '2k' | '4k') =>
      priceVideo(P, { kind: 'video-mode', outputSeconds: 1, tier, ...(resolution ? { resolution } : {}) }).amount - 5;
    expect(at('pro', '1080p')).toBe(250);
    expect(at('std', '4k')).toBe(1000);
    expect(at('std', '1080p')).toBe(100);
    expect(at('pro')).toBe(200);
    const res = (tier: '480p' | '2k') =>
      priceVideo({ unit: 'video', perSecond: { '720p': 3, '4k': 9 } }, { kind: 'video', outputSeconds: 1, tier })
        .amount;
    expect([res('480p'), res('2k')]).toEqual([3, 9]);
  });

  it('the formula: ceil(Σ ms × rate / 1000) + shots × perShot + perRun', () => {
    const c = priceVideo(P, {
      kind: 'video-mode',
      outputSeconds: 5.1,
      inputSeconds: 2.5,
      tier: 'std',
      sound: true,
      voice: true,
      shots: 3,
      upstreamUnits: 1.5,
    });
    expect(c.amount).toBe(Math.ceil((5100 * (100 + 50 + 20) + 2500 * 7) / 1000) + 3 * 1000 + 5);
    expect(c.quantities).toMatchObject({ sound: true, voice: true, shots: 3, upstream_units: 1.5, tier: 'std' });
    expect(c.unitPrices).toMatchObject({ per_second: 100, sound_per_second: 50, per_shot: 1000, per_run: 5 });
  });

  it('an older shape charges exactly what it did, with the ledger quantities it wrote', () => {
    const mode = priceUsage(base('vidx-v1').price, { kind: 'video-mode', outputSeconds: 5.1, tier: 'pro' });
    expect(mode).toEqual({
      amount: 2_499_000,
      quantities: { output_seconds: 5.1, billed_seconds: 5.1, tier: 'pro' },
      unitPrices: { per_second: 490_000 },
    });
    const edit = priceUsage(base('hhx-1.0-video-edit').price, {
      kind: 'video',
      outputSeconds: 6.62,
      inputSeconds: 6.62,
      tier: '720p',
    });
    expect(edit).toEqual({
      amount: Math.ceil((13_240 * 900_000) / 1000),
      quantities: {
        output_seconds: 6.62,
        input_seconds: 6.62,
        billed_seconds: 13.24,
        tier: '720p',
        basis: 'input+output',
      },
      unitPrices: { per_second: 900_000 },
    });
    // 480p reported on a {720p, 1080p} price: the 720p rate, as before.
    const low = priceUsage(base('wnx2.7-t2v').price, { kind: 'video', outputSeconds: 5, tier: '480p' });
    expect([low.amount, low.quantities.tier]).toEqual([3_000_000, '720p']);
  });
});

describe('the catalogue file: family A data a price depends on', () => {
  const dir = tempDir('tw-video-price-');
  let n = 0;
  const read = (item: Record<string, unknown>) => {
    const p = join(dir, `c${++n}.json`);
    writeFileSync(p, JSON.stringify([item]));
    return () => readCatalogueFile(p);
  };
  it.each([
    [{ resolutions: ['8k'], fields: ['resolution'] }, 'vidx.text2video.resolutions'],
    [{ fields: ['resolution'] }, 'vidx.text2video.resolutions'],
    [{ maxShots: 7 }, 'vidx.text2video.maxShots'],
    [{ upstreamModel: '' }, 'vidx.text2video.upstreamModel'],
    [{ fields: ['multi_shots'] }, 'vidx.text2video.fields'],
  ])('%j is refused, naming %s', (rules, field) => {
    expect(read({ model: 'vidx-v3', vidx: { text2video: { endpoint: 'text2video', ...rules } } })).toThrow(field);
  });
  it('a bad video price in the file names its field', () => {
    expect(read({ model: 'vidx-v3', price: { unit: 'video', perSecond: { '5k': 1 } } })).toThrow('price.perSecond.5k');
    const kling = { kind: 'vidx-video', upstream: 'kling', upstreamModel: 'kling-v3', capabilities: {} };
    expect(read({ model: 'vidx-new', ...kling, price: { unit: 'video', perSecond: { '4k': 1 } } })).toThrow(
      'price.perSecond.std',
    );
  });
});
