// The overview's spend is the ledger's: over a window with chats, images and a video task (charged when it
// settles, long after its request was logged), /admin/stats gives the same money as the ledger, in total, per
// model and per kind.
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { flushWriters } from '../../support/store-rows.ts';
import { createVideo, FAST_TASK_ENV, waitTerminal } from '../../support/videos.ts';

const t = useHarness({ env: FAST_TASK_ENV, sim: { taskDurationMs: 200 } });

interface Stats {
  totals: { spend: number };
  spend_by_kind: Record<string, number>;
  top_models: Array<{ model: string | null; requests: number; spend: number }>;
}

let video = '';

beforeAll(async () => {
  const chat = await t.h.fetch('/v1/chat/completions', {
    method: 'POST',
    token: t.token,
    json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hello' }], max_tokens: 20 },
  });
  expect(chat.status).toBe(200);
  const image = await t.h.fetch('/v1/images/generations', {
    method: 'POST',
    token: t.token,
    json: { model: 'qwx-image-2.0', prompt: 'a lighthouse', n: 1, size: '1024x1024' },
  });
  expect(image.status).toBe(200);
  const c = await createVideo(t.h, t.token, { model: 'wnx2.7-t2v', prompt: 'waves', seconds: 3, resolution: '720p' });
  expect(c.status).toBe(200);
  video = c.json.id as string;
  expect((await waitTerminal(t.h, t.token, video)).status).toBe('completed');
  await flushWriters(t.h);
});

async function ledgerSums(): Promise<Map<string, number>> {
  const rows = await t.h.store.db.selectFrom('ledger').select(['model', 'kind', 'amount']).execute();
  const by = new Map<string, number>();
  for (const r of rows) {
    if (r.kind === 'credit') continue;
    by.set(r.model, (by.get(r.model) ?? 0) + Number(r.amount));
    by.set(`kind:${r.kind}`, (by.get(`kind:${r.kind}`) ?? 0) + Number(r.amount));
    by.set('', (by.get('') ?? 0) + Number(r.amount));
  }
  return by;
}

describe('GET /admin/stats spend comes from the ledger', () => {
  it('total, per model and per kind equal the ledger, the video task included', async () => {
    const ledger = await ledgerSums();
    const videoModel = (
      await t.h.store.db.selectFrom('ledger').select('model').where('task_id', '=', video).executeTakeFirstOrThrow()
    ).model;
    expect(ledger.get(videoModel)).toBeGreaterThan(0);
    for (const window of ['1h', '24h', '30d']) {
      const r = await t.h.admin(`/admin/stats?window=${window}`);
      expect(r.status).toBe(200);
      const s = (await r.json()) as Stats;
      expect(s.totals.spend).toBe(ledger.get(''));
      for (const m of s.top_models) if (m.model) expect(m.spend).toBe(ledger.get(m.model) ?? 0);
      expect(s.top_models.find((m) => m.model === videoModel)?.spend).toBe(ledger.get(videoModel));
      for (const [k, v] of Object.entries(s.spend_by_kind)) expect(v).toBe(ledger.get(`kind:${k}`));
      expect(Object.keys(s.spend_by_kind).length).toBeGreaterThanOrEqual(3);
    }
  });
});
