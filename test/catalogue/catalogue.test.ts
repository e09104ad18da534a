import { describe, expect, it } from 'vitest';
import { applyOverrides, Catalogue } from '../../src/catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE, REFUSED_MODELS } from '../../src/catalogue/default-catalogue.ts';

const cat = new Catalogue(DEFAULT_CATALOGUE);

// Every public model name of both APIs.
const VIDX_T2V = [
  'vidx-video-o1',
  'vidx-v1',
  'vidx-v1-5',
  'vidx-v1-6',
  'vidx-v2-master',
  'vidx-v2-1',
  'vidx-v2-1-master',
  'vidx-v2-5-turbo',
  'vidx-v2-6',
  'vidx-v3',
];
const VIDEO = [
  'hhx-1.1-t2v',
  'hhx-1.1-i2v',
  'hhx-1.1-r2v',
  'hhx-1.0-i2v',
  'hhx-1.0-r2v',
  'hhx-1.0-video-edit',
  'wnx2.7-t2v',
  'wnx2.7-i2v',
  'wnx2.7-r2v',
  'wnx2.7-videoedit',
];
const TEXT = ['qwx3.7-plus', 'qwx3-vl-plus', 'text-embedding-v4'];
const IMAGES = ['qwx-image-2.0', 'qwx-image-2.0-pro', 'qwx-image-edit-plus'];

/** The default public → upstream name mapping (stand-in prefixes → the upstream's model names). */
const upstreamName = (id: string) =>
  id.replace(/^qwx/, 'qwen').replace(/^wnx/, 'wan').replace(/^hhx/, 'happyhorse').replace(/^vidx/, 'kling');

describe('default catalogue', () => {
  it('has every public model of the contract, each once', () => {
    const ids = cat.entries().map((e) => e.id);
    for (const id of [...VIDX_T2V, 'vidx-v3-omni', ...VIDEO, ...TEXT, ...IMAGES]) expect(ids, id).toContain(id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('kinds and upstreams', () => {
    for (const id of VIDX_T2V) expect(cat.get(id)).toMatchObject({ kind: 'vidx-video', upstream: 'kling' });
    expect(cat.get('vidx-v3-omni')).toMatchObject({ kind: 'vidx-omni', upstream: 'kling' });
    for (const id of VIDEO) expect(cat.get(id)).toMatchObject({ kind: 'video', upstream: 'dashscope' });
    expect(cat.get('qwx3.7-plus')).toMatchObject({ kind: 'chat', upstream: 'dashscope' });
    expect(cat.get('qwx3-vl-plus')).toMatchObject({ kind: 'vision', upstream: 'dashscope' });
    expect(cat.get('text-embedding-v4')).toMatchObject({ kind: 'embedding', upstream: 'dashscope' });
    expect(cat.get('qwx-image-2.0')).toMatchObject({
      kind: 'image',
      capabilities: { imageGenerate: true, imageEdit: true, maxEditImages: 3 },
    });
    expect(cat.get('qwx-image-2.0-pro')).toMatchObject({
      kind: 'image',
      capabilities: { imageGenerate: true, imageEdit: true, maxEditImages: 3 },
    });
    expect(cat.get('qwx-image-edit-plus')).toMatchObject({ kind: 'image-edit', capabilities: { imageEdit: true } });
  });

  it('upstream model names follow the stand-in mapping; stand-in names are never sent upstream', () => {
    for (const e of cat.entries()) {
      if (e.hidden) continue;
      expect(e.upstreamModel, e.id).toBe(upstreamName(e.id));
      expect(e.upstreamModel, e.id).not.toMatch(/^(qwx|wnx|hhx|vidx)/);
    }
    expect(cat.get('vidx-v1-6-multi-elements')?.upstreamModel).toBe('kling-v1-6');
  });

  it('video rules the later issues need', () => {
    for (const id of VIDEO.filter((x) => x.startsWith('hhx'))) expect(cat.get(id)!.video!.minSeconds, id).toBe(3);
    for (const id of VIDEO.filter((x) => x.startsWith('wnx'))) expect(cat.get(id)!.video!.minSeconds, id).toBe(2);
    for (const id of VIDEO) expect(cat.get(id)!.video!.maxSeconds, id).toBeLessThanOrEqual(15);
    for (const id of ['hhx-1.1-t2v', 'hhx-1.1-i2v', 'hhx-1.1-r2v'])
      expect(cat.get(id)!.video!.defaultResolution, id).toBe('1080p');
    expect(cat.get('hhx-1.1-r2v')!.video!.maxReferenceImages).toBe(9);
    const edit = cat.get('hhx-1.0-video-edit')!;
    expect(edit.price).toMatchObject({ unit: 'video-second', basis: 'input+output' });
    expect(edit.video).toMatchObject({ ratio: false, duration: false });
    expect(cat.get('wnx2.7-t2v')!.price).toMatchObject({ unit: 'video-second', basis: 'output' });
  });

  it('qwx3-vl-plus has the three context-length input tiers', () => {
    const p = cat.get('qwx3-vl-plus')!.price;
    expect(p.unit).toBe('tokens');
    if (p.unit === 'tokens') expect(p.tiers.map((t) => t.maxInputTokens)).toEqual([32_000, 128_000, 256_000]);
  });

  it('prices are integer micro-units', () => {
    const nums = (v: unknown): number[] =>
      typeof v === 'number' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(nums) : [];
    for (const e of cat.entries()) for (const n of nums(e.price)) expect(Number.isInteger(n), e.id).toBe(true);
  });
});

describe('resolve', () => {
  it('exact names', () => {
    expect(cat.resolve('qwx3.7-plus')).toMatchObject({
      publicName: 'qwx3.7-plus',
      upstreamModel: 'qwen3.7-plus',
      billingModel: 'qwx3.7-plus',
    });
  });

  it('vidx-v2-5 is normalised to vidx-v2-5-turbo before mapping', () => {
    expect(cat.resolve('vidx-v2-5')).toMatchObject({
      publicName: 'vidx-v2-5-turbo',
      upstreamModel: 'kling-v2-5-turbo',
      billingModel: 'vidx-v2-5-turbo',
    });
  });

  it('dated snapshots of wnx2.7-t2v / -i2v pin the upstream version and bill as the base', () => {
    expect(cat.resolve('wnx2.7-t2v-2026-01-15')).toMatchObject({
      publicName: 'wnx2.7-t2v-2026-01-15',
      upstreamModel: 'wan2.7-t2v-2026-01-15',
      billingModel: 'wnx2.7-t2v',
    });
    expect(cat.resolve('wnx2.7-i2v-20260115')).toMatchObject({
      upstreamModel: 'wan2.7-i2v-20260115',
      billingModel: 'wnx2.7-i2v',
    });
    expect(cat.resolve('wnx2.7-r2v-2026-01-15')).toBeNull();
    expect(cat.resolve('hhx-1.1-t2v-2026-01-15')).toBeNull();
    expect(cat.resolve('wnx2.7-t2v-latest')).toBeNull();
  });

  it('unknown names, upstream names and the refused 3.0 turbo do not resolve', () => {
    for (const n of ['gpt-4o', 'qwen3.7-plus', 'kling-v1', '', ...REFUSED_MODELS]) expect(cat.resolve(n), n).toBeNull();
  });
});

describe('overrides (the catalogue is data)', () => {
  it('replace fields of an entry and add complete new entries', () => {
    const out = new Catalogue(
      applyOverrides(DEFAULT_CATALOGUE, [
        { model: 'qwx3.7-plus', entry: { upstreamModel: 'qwen3.7-plus-2026-02-01' } },
        {
          model: 'brand-new',
          entry: {
            kind: 'chat',
            upstream: 'dashscope',
            upstreamModel: 'qwen-new',
            ownedBy: 'qwx',
            price: { unit: 'tokens', tiers: [] },
            capabilities: {},
          },
        },
        { model: 'incomplete', entry: { kind: 'chat' } },
      ]),
    );
    expect(out.resolve('qwx3.7-plus')?.upstreamModel).toBe('qwen3.7-plus-2026-02-01');
    expect(out.get('qwx3.7-plus')?.id).toBe('qwx3.7-plus');
    expect(out.resolve('brand-new')?.upstreamModel).toBe('qwen-new');
    expect(out.resolve('incomplete')).toBeNull();
  });
});
