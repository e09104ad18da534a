// Every admin list is paged by cursor with `limit`: channels, prices and price groups page through more rows than
// one page, each row exactly once, and refuse a parameter they do not know; /admin/stats and /admin/health refuse
// unknown parameters too — on the suite's dialect (TOLLWAY_TEST_DIALECT=postgres for PostgreSQL).
import { beforeAll, describe, expect, it } from 'vitest';
import { expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';

const t = useHarness();

type Page<T> = { data: T[]; has_more: boolean; next_cursor?: string };

/** Every page of a list with `limit`, following next_cursor. */
async function walk<T>(path: string, limit: number): Promise<{ rows: T[]; pages: number }> {
  const rows: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const r = await t.h.admin(`${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(r.status, path).toBe(200);
    const p = (await r.json()) as Page<T>;
    expect(p.data.length).toBeLessThanOrEqual(limit);
    expect(p.has_more).toBe(p.next_cursor !== undefined);
    rows.push(...p.data);
    pages++;
    cursor = p.next_cursor;
  } while (cursor !== undefined && pages < 100);
  return { rows, pages };
}

/** The whole list in one page of the default size (the way callers without a cursor read it). */
async function whole<T>(path: string): Promise<Page<T>> {
  const r = await t.h.admin(path);
  expect(r.status).toBe(200);
  return (await r.json()) as Page<T>;
}

beforeAll(async () => {
  for (let i = 0; i < 7; i++) {
    const r = await t.h.admin('/admin/channels', {
      method: 'POST',
      json: {
        name: `paged-${i}`,
        kind: 'dashscope',
        base_url: t.h.sim.url,
        api_key: `sk-paged-${i}`,
        models: ['qwx3.7-plus'],
      },
    });
    expect(r.status).toBe(201);
  }
  for (let i = 0; i < 7; i++) {
    const r = await t.h.admin(`/admin/price-groups/group-${i}`, { method: 'PUT', json: { multiplier: 1 - i / 10 } });
    expect(r.status).toBe(201);
  }
});

describe('lists paged by cursor', () => {
  it('/admin/channels: every channel once, in creation order, over several pages', async () => {
    const all = await whole<{ id: string }>('/admin/channels');
    expect(all.has_more).toBe(false);
    expect(all.data.length).toBeGreaterThanOrEqual(7);
    const { rows, pages } = await walk<{ id: string; name: string }>('/admin/channels', 3);
    expect(pages).toBe(Math.ceil(all.data.length / 3));
    expect(rows.map((c) => c.id)).toEqual(all.data.map((c) => c.id));
    expect(new Set(rows.map((c) => c.id)).size).toBe(rows.length);
    expect(rows.filter((c) => c.name.startsWith('paged-')).map((c) => c.name)).toEqual(
      Array.from({ length: 7 }, (_, i) => `paged-${i}`),
    );
  });

  it('/admin/prices: every model once, by model id, over several pages', async () => {
    const all = await whole<{ model: string }>('/admin/prices');
    expect(all.has_more).toBe(false);
    expect(all.data.length).toBeGreaterThan(10);
    const { rows, pages } = await walk<{ model: string }>('/admin/prices', 4);
    expect(pages).toBe(Math.ceil(all.data.length / 4));
    const models = rows.map((p) => p.model);
    expect(models).toEqual(all.data.map((p) => p.model));
    expect(models).toEqual([...models].sort());
    expect(new Set(models).size).toBe(models.length);
  });

  it('/admin/price-groups: every group once, by name, over several pages', async () => {
    const { rows, pages } = await walk<{ name: string; multiplier: number }>('/admin/price-groups', 2);
    expect(pages).toBe(4);
    expect(rows.map((g) => g.name)).toEqual(Array.from({ length: 7 }, (_, i) => `group-${i}`));
    expect(rows[3]!.multiplier).toBeCloseTo(0.7);
  });

  it('refuse an unknown parameter, a bad limit and a cursor they did not give out (400 naming it)', async () => {
    for (const path of ['/admin/channels', '/admin/prices', '/admin/price-groups']) {
      await expectB(await t.h.admin(`${path}?status=enabled`), 400, 'invalid_parameter');
      await expectB(await t.h.admin(`${path}?limit=0`), 400, 'invalid_parameter');
      await expectB(await t.h.admin(`${path}?cursor=not-a-cursor`), 400, 'invalid_parameter');
    }
    await expectB(await t.h.admin('/admin/stats?windw=1h'), 400, 'invalid_parameter');
    await expectB(await t.h.admin('/admin/health?verbose=1'), 400, 'invalid_parameter');
    expect((await t.h.admin('/admin/stats?window=1h')).status).toBe(200);
    expect((await t.h.admin('/admin/health')).status).toBe(200);
  });
});
