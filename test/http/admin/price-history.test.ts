// GET /admin/prices/{model}/history through the real server, on the suite's dialect: every set and reset with the
// effective price before and after it (a reset falls back to the catalogue file's price, not the built-in one),
// who made it and the request that made it; newest first, paged by cursor; unknown models and bad parameters refused
// in the family B shape; concurrent changes of one model each see the one before.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';
import { tempDir } from '../../support/temp-dir.ts';

const dir = tempDir('tollway-price-history-');
const catalogueFile = join(dir, 'catalogue.json');
// The file's price for the image model differs from the built-in 200,000, so a reset shows which one it went back to.
const FILE_PRICE = { unit: 'image', perImage: 250_000 };
writeFileSync(catalogueFile, JSON.stringify([{ model: 'qwx-image-2.0', price: FILE_PRICE }]));
const t = useHarness({ channels: false, env: { TOLLWAY_CATALOGUE_FILE: catalogueFile } });

interface Change {
  id: number;
  model: string;
  action: 'set' | 'reset';
  old_price: unknown;
  new_price: unknown;
  actor: string;
  request_id: string | null;
  at: number;
}
type History = { object: string; model: string; data: Change[]; has_more: boolean; next_cursor?: string };

async function history(model: string, query = ''): Promise<History> {
  const r = await t.h.admin(`/admin/prices/${model}/history${query}`);
  expect(r.status, await r.clone().text()).toBe(200);
  return (await r.json()) as History;
}

/** A price change; answers the request id the gateway gave it. */
async function change(model: string, method: 'PUT' | 'DELETE', json?: unknown): Promise<string> {
  const r = await t.h.admin(`/admin/prices/${model}`, { method, ...(json ? { json } : {}) });
  expect(r.status, await r.clone().text()).toBe(200);
  return r.headers.get('x-gateway-request-id')!;
}

describe('price history', () => {
  it('a set, a second set and a reset give three rows, newest first, with the old and new effective prices', async () => {
    expect((await history('qwx-image-2.0')).data).toEqual([]);
    const before = Date.now();
    const r1 = await change('qwx-image-2.0', 'PUT', { unit: 'image', perImage: 300_000 });
    const r2 = await change('qwx-image-2.0', 'PUT', { price: { unit: 'image', perImage: 310_000 } });
    const r3 = await change('qwx-image-2.0', 'DELETE');
    // Dropping an override that is not there changes nothing and records nothing.
    await change('qwx-image-2.0', 'DELETE');

    const h = await history('qwx-image-2.0');
    expect(h).toMatchObject({ object: 'list', model: 'qwx-image-2.0', has_more: false });
    expect(h.next_cursor).toBeUndefined();
    expect(h.data.map((c) => [c.action, c.old_price, c.new_price, c.request_id])).toEqual([
      ['reset', { unit: 'image', perImage: 310_000 }, FILE_PRICE, r3],
      ['set', { unit: 'image', perImage: 300_000 }, { unit: 'image', perImage: 310_000 }, r2],
      ['set', FILE_PRICE, { unit: 'image', perImage: 300_000 }, r1],
    ]);
    for (const c of h.data) {
      expect(c.model).toBe('qwx-image-2.0');
      expect(c.actor).toBe('admin');
      expect(c.at).toBeGreaterThanOrEqual(before);
      expect(c.at).toBeLessThanOrEqual(Date.now());
    }
    expect(h.data[0]!.id).toBeGreaterThan(h.data[1]!.id);
    // The live price is the file's again.
    expect(t.h.gw.deps.meter.price('qwx-image-2.0', { kind: 'images', images: 1 }).amount).toBe(250_000);
  });

  it('a snapshot name means its base model; a refused price records nothing', async () => {
    const bad = await t.h.admin('/admin/prices/wnx2.7-t2v', {
      method: 'PUT',
      json: { unit: 'video-second', perSecond: { '720p': -1, '1080p': 1 } },
    });
    await expectB(bad, 400, 'invalid_parameter');
    await change('wnx2.7-t2v-20260101', 'PUT', {
      unit: 'video-second',
      perSecond: { '720p': 700_000, '1080p': 1_100_000 },
    });
    const h = await history('wnx2.7-t2v-20991231');
    expect(h.model).toBe('wnx2.7-t2v');
    expect(h.data).toHaveLength(1);
    expect(h.data[0]).toMatchObject({
      action: 'set',
      old_price: { unit: 'video-second', perSecond: { '720p': 600_000, '1080p': 1_000_000 }, basis: 'output' },
      new_price: { unit: 'video-second', perSecond: { '720p': 700_000, '1080p': 1_100_000 }, basis: 'output' },
    });
    expect((await history('wnx2.7-t2v')).data).toEqual(h.data);
  });

  it('pages by cursor: every change once, newest first', async () => {
    const model = 'qwx-image-2.0-pro';
    for (let i = 1; i <= 5; i++) await change(model, 'PUT', { unit: 'image', perImage: 500_000 + i });
    const seen: Change[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const p = await history(model, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(p.data.length).toBeLessThanOrEqual(2);
      expect(p.has_more).toBe(p.next_cursor !== undefined);
      seen.push(...p.data);
      cursor = p.next_cursor;
      pages++;
    } while (cursor !== undefined && pages < 10);
    expect(pages).toBe(3);
    expect(seen.map((c) => (c.new_price as { perImage: number }).perImage)).toEqual([
      500_005, 500_004, 500_003, 500_002, 500_001,
    ]);
    expect(new Set(seen.map((c) => c.id)).size).toBe(5);
    // Each row's old price is the row before's new price.
    for (let i = 0; i < seen.length - 1; i++) expect(seen[i]!.old_price).toEqual(seen[i + 1]!.new_price);
    expect(seen[4]!.old_price).toEqual({ unit: 'image', perImage: 500_000 });
  });

  it('concurrent changes of one model take turns: the history is one unbroken chain', async () => {
    const model = 'qwx-image-edit-plus';
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => change(model, 'PUT', { unit: 'image', perImage: 100_000 + i })),
    );
    const { data } = await history(model);
    expect(data).toHaveLength(8);
    for (let i = 0; i < data.length - 1; i++) expect(data[i]!.old_price, `row ${i}`).toEqual(data[i + 1]!.new_price);
    expect(data[7]!.old_price).toEqual({ unit: 'image', perImage: 200_000 });
    // The last change recorded is the price in force.
    expect(t.h.gw.deps.catalogue.get(model)!.price).toEqual(data[0]!.new_price);
  });

  it('refuses an unknown model (404) and bad paging parameters (400) in the family B shape', async () => {
    const nf = await expectB(await t.h.admin('/admin/prices/no-such-model/history'), 404, 'model_not_found');
    expect(nf.error.param).toBe('model');
    expect(
      (await expectB(await t.h.admin('/admin/prices/qwx-image-2.0/history?cursor=nope'), 400, 'invalid_parameter'))
        .error.param,
    ).toBe('cursor');
    expect(
      (await expectB(await t.h.admin('/admin/prices/qwx-image-2.0/history?limit=0'), 400, 'invalid_parameter')).error
        .param,
    ).toBe('limit');
    expect(
      (await expectB(await t.h.admin('/admin/prices/qwx-image-2.0/history?since=1'), 400, 'invalid_parameter')).error
        .param,
    ).toBe('since');
    const { secret } = await t.h.token();
    await expectB(await t.h.fetch('/admin/prices/qwx-image-2.0/history', { token: secret }), 403, 'permission_denied');
  });
});
