import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CATALOGUE } from '../../src/catalogue/default-catalogue.ts';
import { ConfigError } from '../../src/config/config.ts';
import { loadCatalogue, readCatalogueFile, upsertOverride } from '../../src/pricing/catalogue-source.ts';
import { validatePrice } from '../../src/pricing/price-validation.ts';
import { priceForEntry } from '../../src/pricing/prices.ts';
import { freshStore } from '../support/store.ts';
import { tempDir } from '../support/temp-dir.ts';

const dir = tempDir('tollway-cat-');
let n = 0;
function file(content: unknown): string {
  const p = join(dir, `cat-${++n}.json`);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}
const base = (id: string) => DEFAULT_CATALOGUE.find((e) => e.id === id)!;

describe('validatePrice', () => {
  it('accepts each unit with integer micro-units', () => {
    expect(validatePrice({ unit: 'image', perImage: 0 })).toEqual({ unit: 'image', perImage: 0 });
    expect(validatePrice({ unit: 'video-mode-second', perSecond: { std: 1, pro: 2 } })).toEqual({
      unit: 'video-mode-second',
      perSecond: { std: 1, pro: 2 },
    });
    // basis may be omitted when replacing a video price: the current basis is kept.
    expect(
      validatePrice({ unit: 'video-second', perSecond: { '720p': 1, '1080p': 2 } }, base('hhx-1.0-video-edit').price),
    ).toMatchObject({
      basis: 'input+output',
    });
    expect(
      validatePrice({
        unit: 'tokens',
        tiers: [
          { maxInputTokens: 10, inputPer1k: 1, outputPer1k: 2 },
          { maxInputTokens: null, inputPer1k: 3, outputPer1k: 4, cachedInputPer1k: 1 },
        ],
      }),
    ).toMatchObject({ unit: 'tokens' });
  });

  it.each([
    [{ unit: 'image', perImage: 1.5 }, 'price.perImage'],
    [{ unit: 'image', perImage: -1 }, 'price.perImage'],
    [{ unit: 'image', perImage: '100' }, 'price.perImage'],
    [{ unit: 'image' }, 'price.perImage'],
    [{ unit: 'image', perImage: 1, extra: 1 }, 'price.extra'],
    [{ unit: 'coins', perImage: 1 }, 'price.unit'],
    [{ unit: 'tokens', tiers: [] }, 'price.tiers'],
    [
      {
        unit: 'tokens',
        tiers: [
          { maxInputTokens: null, inputPer1k: 1, outputPer1k: 1 },
          { maxInputTokens: 5, inputPer1k: 1, outputPer1k: 1 },
        ],
      },
      'price.tiers[0].maxInputTokens',
    ],
    [
      {
        unit: 'tokens',
        tiers: [
          { maxInputTokens: 10, inputPer1k: 1, outputPer1k: 1 },
          { maxInputTokens: 10, inputPer1k: 1, outputPer1k: 1 },
        ],
      },
      'price.tiers[1].maxInputTokens',
    ],
    [
      { unit: 'tokens', tiers: [{ maxInputTokens: 10, inputPer1k: 1, outputPer1k: 0.5 }] },
      'price.tiers[0].outputPer1k',
    ],
    [{ unit: 'video-second', perSecond: { '720p': 1, '1080p': 2, '4k': 3 }, basis: 'output' }, 'price.perSecond.4k'],
    [{ unit: 'video-second', perSecond: { '720p': 1, '1080p': 2 } }, 'price.basis'],
    [{ unit: 'video-mode-second', perSecond: { std: 1 } }, 'price.perSecond.pro'],
  ])('refuses %j (param %s)', (price, param) => {
    expect(() => validatePrice(price)).toThrow(
      expect.objectContaining({ code: 'invalid_parameter', status: 400, param }),
    );
  });

  it('refuses changing a model to another unit', () => {
    expect(() => validatePrice({ unit: 'image', perImage: 1 }, base('qwx3.7-plus').price)).toThrow(
      expect.objectContaining({ param: 'price.unit' }),
    );
  });
});

describe('catalogue file', () => {
  it('applies partial entries over the built-ins (price replaced whole, other fields kept)', () => {
    const p = file([{ model: 'qwx-image-2.0', price: { unit: 'image', perImage: 123 } }]);
    const o = readCatalogueFile(p);
    expect(o).toEqual([{ model: 'qwx-image-2.0', entry: { price: { unit: 'image', perImage: 123 } } }]);
  });

  it.each([
    ['not json', /not valid JSON/],
    [{ model: 'x' }, /JSON array/],
    [[{ price: { unit: 'image', perImage: 1 } }], /item 0 must be an object with a "model"/],
    [
      [{ model: 'qwx-image-2.0', price: { unit: 'image', perImage: 1.2 } }],
      /item 0: qwx-image-2.0: price\.perImage must be an integer number of micro-units from 0 to 1000000000000/,
    ],
    [
      [{ model: 'qwx-image-2.0', price: { unit: 'image', perImage: 1_000_000_000_001 } }],
      /price\.perImage must be an integer number of micro-units from 0 to 1000000000000/,
    ],
    [[{ model: 'qwx-image-2.0', prcie: {} }], /unknown field "prcie"/],
    [
      [{ model: 'new-model', price: { unit: 'image', perImage: 1 } }],
      /kind, upstream, upstreamModel and price are all required/,
    ],
    [
      [
        { model: 'qwx-image-2.0', hidden: true },
        { model: 'qwx-image-2.0', hidden: false },
      ],
      /appears twice/,
    ],
    [[{ model: 'vidx-v2-1', vidx: [] }], /vidx-v2-1: vidx must be an object keyed by path/],
    [
      [{ model: 'vidx-v2-1', vidx: { image2video: { endpoint: 'text2video' } } }],
      /vidx\.image2video is not a family A path/,
    ],
    [
      [{ model: 'vidx-v2-1', vidx: { text2video: { endpoint: 'multi-elements' } } }],
      /vidx\.text2video\.endpoint must be one of text2video, omni-video/,
    ],
    [
      [{ model: 'vidx-v2-1', vidx: { text2video: { endpoint: 'text2video', fields: ['mode', 'seed'] } } }],
      /vidx\.text2video\.fields must be an array of mode, negative_prompt/,
    ],
    [
      [{ model: 'vidx-v2-1', vidx: { text2video: { endpoint: 'text2video', durations: [5] } } }],
      /vidx\.text2video\.durations must be a non-empty array of duration strings/,
    ],
    [
      [{ model: 'vidx-v2-1', vidx: { text2video: { endpoint: 'text2video', defaultMode: 'max' } } }],
      /defaultMode must be "std" or "pro"/,
    ],
    [
      [{ model: 'vidx-v2-1', vidx: { text2video: { endpoint: 'text2video', modes: [] } } }],
      /vidx\.text2video\.modes is not a known field/,
    ],
  ])('refuses %j with a clear ConfigError', (content, msg) => {
    const p = file(content);
    expect(() => readCatalogueFile(p)).toThrow(ConfigError);
    expect(() => readCatalogueFile(p)).toThrow(msg);
  });

  it('family A endpoint data (vidx): checked, and left-out rules take the text2video defaults', () => {
    const o = readCatalogueFile(
      file([
        { model: 'vidx-v2-1', vidx: { text2video: { endpoint: 'text2video', fields: ['mode', 'cfg_scale'] } } },
        { model: 'vidx-v1', vidx: {} },
      ]),
    );
    expect(o).toEqual([
      {
        model: 'vidx-v2-1',
        entry: {
          vidx: {
            text2video: {
              endpoint: 'text2video',
              fields: ['mode', 'cfg_scale'],
              durations: ['5', '10'],
              defaultMode: 'std',
            },
          },
        },
      },
      { model: 'vidx-v1', entry: { vidx: {} } },
    ]);
  });

  it('a missing file is a ConfigError naming the path', () => {
    expect(() => readCatalogueFile(join(dir, 'nope.json'))).toThrow(/nope\.json cannot be read/);
  });

  it('layers: built-in ← file ← stored overrides; a new complete model can be added by file', async () => {
    const fresh = await freshStore();
    try {
      const p = file([
        { model: 'qwx-image-2.0', price: { unit: 'image', perImage: 111 } },
        { model: 'qwx-image-2.0-pro', price: { unit: 'image', perImage: 222 } },
        {
          model: 'qwx-image-lite',
          kind: 'image',
          upstream: 'dashscope',
          upstreamModel: 'qwen-image-lite',
          ownedBy: 'qwx',
          capabilities: {},
          price: { unit: 'image', perImage: 5 },
        },
      ]);
      await upsertOverride(fresh.store.db, 'qwx-image-2.0-pro', { price: { unit: 'image', perImage: 333 } });
      const cat = await loadCatalogue(fresh.store.db, p);
      const img = { kind: 'images' as const, images: 1 };
      expect(priceForEntry(cat.get('qwx-image-2.0')!, img).amount).toBe(111);
      expect(priceForEntry(cat.get('qwx-image-2.0-pro')!, img).amount).toBe(333);
      expect(priceForEntry(cat.get('qwx-image-lite')!, img).amount).toBe(5);
      expect(cat.get('qwx-image-2.0')!.capabilities.maxN).toBe(6);
      // Removing the stored price falls back to the file's.
      await upsertOverride(fresh.store.db, 'qwx-image-2.0-pro', {}, ['price']);
      expect(priceForEntry((await loadCatalogue(fresh.store.db, p)).get('qwx-image-2.0-pro')!, img).amount).toBe(222);
      const rows = await fresh.store.db.selectFrom('catalogue_overrides').selectAll().execute();
      expect(rows).toHaveLength(0);
    } finally {
      await fresh.cleanup();
    }
  });

  it('a reload with the catalogue in use keeps it while nothing changed, and builds a new one on a stored change or a file edit', async () => {
    const fresh = await freshStore();
    try {
      const p = file([{ model: 'qwx-image-2.0', price: { unit: 'image', perImage: 111 } }]);
      const img = { kind: 'images' as const, images: 1 };
      const first = await loadCatalogue(fresh.store.db, p);
      expect(await loadCatalogue(fresh.store.db, p, first)).toBe(first);
      await upsertOverride(fresh.store.db, 'qwx-image-2.0', { price: { unit: 'image', perImage: 7 } });
      const second = await loadCatalogue(fresh.store.db, p, first);
      expect(second).not.toBe(first);
      expect(priceForEntry(second.get('qwx-image-2.0')!, img).amount).toBe(7);
      expect(await loadCatalogue(fresh.store.db, p, second)).toBe(second);
      await upsertOverride(fresh.store.db, 'qwx-image-2.0', {}, ['price']);
      writeFileSync(p, JSON.stringify([{ model: 'qwx-image-2.0', price: { unit: 'image', perImage: 112 } }]));
      const third = await loadCatalogue(fresh.store.db, p, second);
      expect(priceForEntry(third.get('qwx-image-2.0')!, img).amount).toBe(112);
      // Another file with the same text is another source.
      expect(
        await loadCatalogue(
          fresh.store.db,
          file([{ model: 'qwx-image-2.0', price: { unit: 'image', perImage: 112 } }]),
          third,
        ),
      ).not.toBe(third);
    } finally {
      await fresh.cleanup();
    }
  });
});
