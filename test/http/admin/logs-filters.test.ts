// GET /admin/logs filters: by token, model, time and request id. Each filter is
// checked on its own against rows it must exclude, so an ignored filter fails the test.
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import type { BErr } from '../../support/error-shapes.ts';

const t = useHarness();
let tokenId: string;
let secret: string;
beforeAll(async () => {
  ({ id: tokenId, secret } = await t.h.token({ name: 'logs-filters' }));
});

type Row = { request_id: string; token_id: string; model: string | null; created_at: number };
async function logs(query: string): Promise<Row[]> {
  const r = await t.h.admin(`/admin/logs?${query}`);
  expect(r.status).toBe(200);
  return ((await r.json()) as { data: Row[] }).data;
}

describe('GET /admin/logs filters', () => {
  it('model and time range each narrow the result on their own', async () => {
    const chat = await t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: secret,
      json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(chat.status).toBe(200);
    const chatRid = chat.headers.get('x-gateway-request-id')!;
    // Two distinct timestamps, so a time bound can separate the rows.
    await new Promise((r) => setTimeout(r, 5));
    const emb = await t.h.fetch('/v1/embeddings', {
      method: 'POST',
      token: secret,
      json: { model: 'text-embedding-v4', input: ['hi'] },
    });
    expect(emb.status).toBe(200);
    const embRid = emb.headers.get('x-gateway-request-id')!;

    const all = await logs(`token_id=${tokenId}`);
    expect(all.map((r) => r.request_id)).toEqual(expect.arrayContaining([chatRid, embRid]));

    const byModel = await logs(`token_id=${tokenId}&model=qwx3.7-plus`);
    expect(byModel.map((r) => r.request_id)).toContain(chatRid);
    expect(byModel.map((r) => r.request_id)).not.toContain(embRid);
    expect(byModel.every((r) => r.model === 'qwx3.7-plus')).toBe(true);

    // since is inclusive, until exclusive (as for the ledger): split exactly at the later row.
    const embAt = all.find((r) => r.request_id === embRid)!.created_at;
    const chatAt = all.find((r) => r.request_id === chatRid)!.created_at;
    expect(embAt).toBeGreaterThan(chatAt);
    const since = await logs(`token_id=${tokenId}&since=${embAt}`);
    expect(since.map((r) => r.request_id)).toContain(embRid);
    expect(since.map((r) => r.request_id)).not.toContain(chatRid);
    const until = await logs(`token_id=${tokenId}&until=${embAt}`);
    expect(until.map((r) => r.request_id)).toContain(chatRid);
    expect(until.map((r) => r.request_id)).not.toContain(embRid);
    // A window after every row is empty; one around both rows holds both.
    expect(await logs(`token_id=${tokenId}&since=${Math.max(embAt, chatAt) + 1}`)).toEqual([]);
    const both = await logs(
      `token_id=${tokenId}&since=${Math.min(embAt, chatAt)}&until=${Math.max(embAt, chatAt) + 1}`,
    );
    expect(both.map((r) => r.request_id).sort()).toEqual([chatRid, embRid].sort());
  });

  it('bad filter values are 400 invalid_parameter', async () => {
    for (const q of ['since=yesterday', 'until=12:00', 'limit=0', 'request_id=a&request_id=b']) {
      const r = await t.h.admin(`/admin/logs?${q}`);
      expect(r.status, q).toBe(400);
      expect(((await r.json()) as BErr).error.code).toBe('invalid_parameter');
    }
  });
});
