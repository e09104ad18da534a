// The admin lists of the request log and the ledger: a stable cursor (rows sharing one millisecond are neither skipped
// nor repeated), the status filter, CSV export with formula neutralisation, and unknown parameters refused — on the
// suite's dialect.
import { describe, expect, it } from 'vitest';
import { expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';

const t = useHarness();
// Every row below shares this millisecond: a recent one (older rows would be the retention sweeper's to delete).
const SAME_MS = Date.now() - 60_000;

type Page<T> = { data: T[]; has_more: boolean; next_cursor?: string };

async function page<T>(path: string): Promise<Page<T>> {
  const r = await t.h.admin(path);
  expect(r.status, path).toBe(200);
  return (await r.json()) as Page<T>;
}

/** Every page of a list, following next_cursor. */
async function walk<T>(base: string, limit: number): Promise<{ rows: T[]; pages: number }> {
  const rows: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const p = await page<T>(`${base}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    rows.push(...p.data);
    pages++;
    expect(p.has_more).toBe(p.next_cursor !== undefined);
    cursor = p.next_cursor;
  } while (cursor !== undefined && pages < 100);
  return { rows, pages };
}

function logRow(i: number, token: string, status: number, endpoint = '/v1/chat/completions') {
  return {
    request_id: `req_page_${String(i).padStart(4, '0')}_${token}`,
    token_id: token,
    model: 'qwx3.7-plus',
    endpoint,
    method: 'POST',
    status,
    latency_ms: 3,
    usage: null,
    amount: 0,
    upstream_request_id: null,
    error_code: status >= 400 ? 'x' : null,
    created_at: SAME_MS,
    channel_id: null,
    attempts: null,
    ttfb_ms: 2,
  };
}

describe('GET /admin/logs', () => {
  it('pages 230 rows of one millisecond by cursor: every row once, in a stable order', async () => {
    const rows = Array.from({ length: 230 }, (_, i) => logRow(i, 'tok_pagelog', 200));
    await t.h.store.db.insertInto('request_log').values(rows).execute();
    const { rows: seen, pages } = await walk<{ request_id: string }>('/admin/logs?token_id=tok_pagelog', 17);
    expect(pages).toBe(Math.ceil(230 / 17));
    const ids = seen.map((r) => r.request_id);
    expect(new Set(ids).size).toBe(230);
    expect(ids).toEqual(
      rows
        .map((r) => r.request_id)
        .sort()
        .reverse(),
    );
  });

  it('status= filters by one status or a class; format=csv exports the page with formulas neutralised', async () => {
    await t.h.store.db
      .insertInto('request_log')
      .values([
        logRow(1, 'tok_status', 200),
        logRow(2, 'tok_status', 429),
        logRow(3, 'tok_status', 503, '=HYPERLINK("http://x")'),
        logRow(4, 'tok_status', 500),
      ])
      .execute();
    const statuses = async (s: string) =>
      (await page<{ status: number }>(`/admin/logs?token_id=tok_status&status=${s}`)).data.map((r) => r.status).sort();
    expect(await statuses('429')).toEqual([429]);
    expect(await statuses('5xx')).toEqual([500, 503]);
    expect(await statuses('2xx')).toEqual([200]);

    const r = await t.h.admin('/admin/logs?token_id=tok_status&status=5xx&format=csv&limit=1');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    const next = r.headers.get('x-next-cursor');
    expect(next).toBeTruthy();
    const lines = (await r.text()).trimEnd().split('\r\n');
    expect(lines[0]!.split(',').slice(0, 3)).toEqual(['request_id', 'created_at', 'created_at_ms']);
    expect(lines).toHaveLength(2);
    // The newest first by request id within the millisecond: row 4 (500), then row 3 (503) on the next page.
    expect(lines[1]).toContain('req_page_0004_tok_status');
    const second = await t.h.admin(
      `/admin/logs?token_id=tok_status&status=5xx&format=csv&limit=1&cursor=${encodeURIComponent(next!)}`,
    );
    const text = await second.text();
    expect(text).toContain('req_page_0003_tok_status');
    expect(text).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(second.headers.get('x-next-cursor')).toBeNull();
  });

  it('unknown parameters, a bad status and a forged cursor are 400 invalid_parameter in the family B shape', async () => {
    for (const q of [
      'statuss=500',
      'before=123',
      'status=abc',
      'status=600',
      'cursor=notacursor',
      `cursor=${Buffer.from('[1]').toString('base64url')}`,
      'format=xml',
    ]) {
      const body = await expectB(await t.h.admin(`/admin/logs?${q}`), 400, 'invalid_parameter');
      expect(body.error.param, q).toBe(q.split('=')[0]);
    }
  });
});

describe('GET /admin/ledger', () => {
  it('pages 230 charges of one millisecond by cursor (and before_id), each once; CSV has the amounts', async () => {
    const rows = Array.from({ length: 230 }, (_, i) => ({
      idempotency_key: `page_${i}`,
      token_id: 'tok_pageledger',
      model: 'qwx3.7-plus',
      kind: 'tokens',
      quantities: '{}',
      unit_prices: '{}',
      amount: 1000 + i,
      request_id: `req_l_${i}`,
      task_id: null,
      upstream_request_id: null,
      created_at: SAME_MS,
    }));
    for (let i = 0; i < rows.length; i += 50)
      await t.h.store.db
        .insertInto('ledger')
        .values(rows.slice(i, i + 50))
        .execute();
    const { rows: seen } = await walk<{ idempotency_key: string; id: number }>(
      '/admin/ledger?token_id=tok_pageledger',
      23,
    );
    expect(new Set(seen.map((r) => r.idempotency_key)).size).toBe(230);
    expect(seen.map((r) => r.id)).toEqual([...seen.map((r) => r.id)].sort((a, b) => b - a));

    const first = await page<{ id: number }>('/admin/ledger?token_id=tok_pageledger&limit=5');
    const byId = await page<{ id: number }>(
      `/admin/ledger?token_id=tok_pageledger&limit=5&before_id=${first.data[4]!.id}`,
    );
    const byCursor = await page<{ id: number }>(
      `/admin/ledger?token_id=tok_pageledger&limit=5&cursor=${first.next_cursor}`,
    );
    expect(byCursor.data).toEqual(byId.data);

    const csv = await t.h.admin('/admin/ledger?token_id=tok_pageledger&limit=2&format=csv');
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'id,created_at,created_at_ms,token_id,model,kind,amount_micro,amount_units,request_id,task_id,idempotency_key,upstream_request_id,quantities',
    );
    expect(lines[1]).toContain(',1229,0.001229,');
  });

  it('unknown parameters are refused (status is not a ledger filter)', async () => {
    for (const q of ['status=200', 'tokenid=x'])
      await expectB(await t.h.admin(`/admin/ledger?${q}`), 400, 'invalid_parameter');
  });
});

describe('GET /admin/tokens', () => {
  it('pages by cursor with limit: every token once, in creation order; unknown parameters and bad cursors are 400', async () => {
    // Twelve tokens of one millisecond: the id orders them within it.
    const now = Date.now();
    const made = await Promise.all(Array.from({ length: 12 }, (_, i) => t.h.token({ name: `paged-${i}` })));
    await t.h.store.db
      .updateTable('tokens')
      .set({ created_at: now })
      .where(
        'id',
        'in',
        made.map((m) => m.id),
      )
      .execute();
    const { rows, pages } = await walk<{ id: string; name: string }>('/admin/tokens?', 5);
    const ids = rows.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    const ours = ids.filter((id) => made.some((m) => m.id === id));
    expect(ours).toEqual(made.map((m) => m.id).sort());
    expect(pages).toBeGreaterThanOrEqual(3);
    const first = await page<{ id: string }>('/admin/tokens?limit=2');
    expect(first.data).toHaveLength(2);
    expect(first.has_more).toBe(true);
    await expectB(await t.h.admin('/admin/tokens?limt=5'), 400, 'invalid_parameter');
    await expectB(await t.h.admin('/admin/tokens?limit=0'), 400, 'invalid_parameter');
    await expectB(await t.h.admin('/admin/tokens?cursor=nope'), 400, 'invalid_parameter');
  });
});
