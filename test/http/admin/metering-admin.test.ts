// Admin metering API through the real server: prices (file + edits), ledger, logs, bills (JSON and CSV).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import type { BErr } from '../../support/error-shapes.ts';
import { tempDir } from '../../support/temp-dir.ts';

const dir = tempDir('tollway-admin-metering-');
const FILE_IMAGE_PRICE = 250_000;
const catalogueFile = join(dir, 'catalogue.json');
writeFileSync(
  catalogueFile,
  JSON.stringify([{ model: 'qwx-image-2.0', price: { unit: 'image', perImage: FILE_IMAGE_PRICE } }]),
);
const t = useHarness({ channels: false, env: { TOLLWAY_CATALOGUE_FILE: catalogueFile } });

interface LedgerItem {
  id: number;
  idempotency_key: string;
  token_id: string;
  model: string;
  kind: string;
  quantities: Record<string, unknown>;
  amount: number;
  request_id: string | null;
  task_id: string | null;
  upstream_request_id: string | null;
  created_at: number;
}
interface BillLine {
  token_id: string;
  token_name: string | null;
  period: string;
  period_start: string;
  entries: number;
  amount: number;
  amount_units: string;
  models: Record<string, { entries: number; amount: number }>;
}

async function json<T>(r: Response, status = 200): Promise<T> {
  const text = await r.text();
  expect(r.status, text).toBe(status);
  return JSON.parse(text) as T;
}

/** RFC 4180 parser (quoted fields, doubled quotes, CRLF), strict: throws on malformed input. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i++;
        if (i < text.length && !',\r\n'.includes(text[i]!)) throw new Error(`junk after closing quote at ${i}`);
      } else {
        field += c;
        i++;
      }
    } else if (c === '"') {
      if (field !== '') throw new Error(`quote inside unquoted field at ${i}`);
      quoted = true;
      i++;
    } else if (c === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (c === '\r' || c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      field += c;
      i++;
    }
  }
  if (quoted) throw new Error('unterminated quote');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

describe('admin auth on metering endpoints', () => {
  it('client tokens are refused (403), no token is 401', async () => {
    const { secret } = await t.h.token();
    // (A wrong key counts against the address: five within a minute lock it out, so only a few are tried here.)
    for (const path of ['/admin/ledger', '/admin/logs', '/admin/bills', '/admin/prices']) {
      if (path === '/admin/ledger' || path === '/admin/bills') {
        const r = await t.h.fetch(path, { token: secret });
        expect(r.status).toBe(403);
        expect(((await r.json()) as BErr).error.code).toBe('permission_denied');
      }
      expect((await t.h.fetch(path)).status).toBe(401);
    }
    const put = await t.h.fetch('/admin/prices/qwx-image-2.0', {
      method: 'PUT',
      token: secret,
      json: { unit: 'image', perImage: 1 },
    });
    expect(put.status).toBe(403);
  });
});

describe('prices', () => {
  it('lists every model with its live price; the catalogue file was applied at start', async () => {
    const body = await json<{
      data: Array<{
        model: string;
        price: { unit: string; perImage?: number };
        price_overridden: boolean;
        default_resolution?: string;
      }>;
    }>(await t.h.admin('/admin/prices'));
    const img = body.data.find((m) => m.model === 'qwx-image-2.0')!;
    expect(img.price).toEqual({ unit: 'image', perImage: FILE_IMAGE_PRICE });
    expect(img.price_overridden).toBe(false);
    expect(body.data.find((m) => m.model === 'hhx-1.1-t2v')!.default_resolution).toBe('1080p');
    expect(body.data.length).toBeGreaterThan(20);
    expect(t.h.gw.deps.meter.price('qwx-image-2.0', { kind: 'images', images: 2 }).amount).toBe(2 * FILE_IMAGE_PRICE);
  });

  it('refuses bad overrides with clear 400s and unknown models with 404', async () => {
    const cases: Array<[unknown, string]> = [
      [{ unit: 'image', perImage: 1.5 }, 'price.perImage'],
      [{ unit: 'image', perImage: -5 }, 'price.perImage'],
      [{ price: { unit: 'image', perImage: '7' } }, 'price.perImage'],
      [{ unit: 'tokens', tiers: [{ maxInputTokens: null, inputPer1k: 1, outputPer1k: 1 }] }, 'price.unit'],
    ];
    for (const [payload, param] of cases) {
      const b = await json<BErr>(await t.h.admin('/admin/prices/qwx-image-2.0', { method: 'PUT', json: payload }), 400);
      expect(b.error.code).toBe('invalid_parameter');
      expect(b.error.param).toBe(param);
    }
    const nf = await json<BErr>(
      await t.h.admin('/admin/prices/no-such-model', { method: 'PUT', json: { unit: 'image', perImage: 1 } }),
      404,
    );
    expect(nf.error.code).toBe('model_not_found');
    // Nothing changed.
    expect(t.h.gw.deps.meter.price('qwx-image-2.0', { kind: 'images', images: 1 }).amount).toBe(FILE_IMAGE_PRICE);
  });

  it('PUT stores an override and the live meter prices with it at once; DELETE falls back to the file price', async () => {
    const put = await json<{ model: string; price: unknown; price_overridden: boolean }>(
      await t.h.admin('/admin/prices/qwx-image-2.0', {
        method: 'PUT',
        json: { price: { unit: 'image', perImage: 300_000 } },
      }),
    );
    expect(put).toMatchObject({
      model: 'qwx-image-2.0',
      price: { unit: 'image', perImage: 300_000 },
      price_overridden: true,
    });
    expect(t.h.gw.deps.meter.price('qwx-image-2.0', { kind: 'images', images: 2 }).amount).toBe(600_000);
    const row = await t.h.store.db
      .selectFrom('catalogue_overrides')
      .selectAll()
      .where('model', '=', 'qwx-image-2.0')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.entry)).toEqual({ price: { unit: 'image', perImage: 300_000 } });
    // Other entry fields are untouched.
    expect(t.h.gw.deps.catalogue.get('qwx-image-2.0')!.capabilities.maxN).toBe(6);

    const del = await json<{ price: unknown; price_overridden: boolean }>(
      await t.h.admin('/admin/prices/qwx-image-2.0', { method: 'DELETE' }),
    );
    expect(del).toMatchObject({ price: { unit: 'image', perImage: FILE_IMAGE_PRICE }, price_overridden: false });
    expect(t.h.gw.deps.meter.price('qwx-image-2.0', { kind: 'images', images: 1 }).amount).toBe(FILE_IMAGE_PRICE);
  });

  it('a price set through a snapshot name applies to the base model (and so to every snapshot)', async () => {
    await json(
      await t.h.admin('/admin/prices/wnx2.7-t2v-20260101', {
        method: 'PUT',
        json: { unit: 'video-second', perSecond: { '720p': 700_000, '1080p': 1_100_000 } },
      }),
    );
    const got = await json<{ model: string; price: { basis: string } }>(await t.h.admin('/admin/prices/wnx2.7-t2v'));
    expect(got.model).toBe('wnx2.7-t2v');
    expect(got.price.basis).toBe('output');
    expect(
      t.h.gw.deps.meter.price('wnx2.7-t2v-20991231', { kind: 'video', outputSeconds: 2, tier: '720p' }).amount,
    ).toBe(1_400_000);
    await json(await t.h.admin('/admin/prices/wnx2.7-t2v', { method: 'DELETE' }));
    expect(
      t.h.gw.deps.meter.price('wnx2.7-t2v-20991231', { kind: 'video', outputSeconds: 2, tier: '720p' }).amount,
    ).toBe(1_200_000);
  });
});

describe('ledger, logs and bills', () => {
  let a: { id: string; secret: string };
  let b: { id: string; secret: string };

  beforeAll(async () => {
    a = await t.h.token({ name: 'Acme, "R&D"' });
    b = await t.h.token({ name: 'beta' });
    const meter = t.h.gw.deps.meter;
    await meter.chargeSync({
      requestId: 'req_led_a1',
      tokenId: a.id,
      model: 'qwx3.7-plus',
      billingModel: 'qwx3.7-plus',
      usage: { kind: 'tokens', inputTokens: 1000, outputTokens: 500 },
      upstreamRequestId: 'up-a1',
    });
    // Deferred: not flushed here — the admin read flushes it.
    meter.chargeSyncDeferred({
      requestId: 'req_led_a2',
      tokenId: a.id,
      model: 'qwx-image-2.0',
      billingModel: 'qwx-image-2.0',
      usage: { kind: 'images', images: 2 },
    });
    const task = {
      taskId: 'video_led_1',
      tokenId: a.id,
      model: 'hhx-1.1-t2v',
      billingModel: 'hhx-1.1-t2v',
      requestId: 'req_led_a3',
      upstreamRequestId: 'up-a3',
    };
    await meter.hold(task, { kind: 'video', outputSeconds: 5 });
    await meter.settle(task, { kind: 'video', outputSeconds: 5 });
    await meter.chargeSync({
      requestId: 'req_led_b1',
      tokenId: b.id,
      model: 'text-embedding-v4',
      billingModel: 'text-embedding-v4',
      usage: { kind: 'tokens', inputTokens: 4000, outputTokens: 0 },
    });
    // Older entries of token b on three UTC days across a month boundary.
    const at = (iso: string) => Date.parse(iso);
    const older = [
      ['old_b1', at('2026-01-30T10:00:00Z'), 1_000],
      ['old_b2', at('2026-01-31T23:59:59.999Z'), 2_000],
      ['old_b3', at('2026-02-01T00:00:00Z'), 4_000],
    ] as const;
    for (const [key, created, amount] of older) {
      await t.h.store.db
        .insertInto('ledger')
        .values({
          idempotency_key: key,
          token_id: b.id,
          model: 'text-embedding-v4',
          kind: 'tokens',
          quantities: '{}',
          unit_prices: '{}',
          amount,
          request_id: key,
          task_id: null,
          upstream_request_id: null,
          created_at: created,
        })
        .execute();
    }
  });

  it('GET /admin/ledger filters by token and shows every field (sync, deferred and task entries)', async () => {
    const { data } = await json<{ data: LedgerItem[] }>(await t.h.admin(`/admin/ledger?token_id=${a.id}`));
    expect(data.map((e) => e.idempotency_key).sort()).toEqual(['req_led_a1', 'req_led_a2', 'video_led_1:success']);
    expect(data.every((e) => e.token_id === a.id)).toBe(true);
    const chat = data.find((e) => e.request_id === 'req_led_a1')!;
    expect(chat).toMatchObject({
      model: 'qwx3.7-plus',
      kind: 'tokens',
      amount: 1800,
      task_id: null,
      upstream_request_id: 'up-a1',
    });
    expect(chat.quantities).toMatchObject({ input_tokens: 1000, output_tokens: 500 });
    expect(typeof chat.id).toBe('number');
    expect(typeof chat.created_at).toBe('number');
    const video = data.find((e) => e.task_id === 'video_led_1')!;
    expect(video).toMatchObject({
      model: 'hhx-1.1-t2v',
      kind: 'video',
      amount: 8_000_000,
      request_id: 'req_led_a3',
      upstream_request_id: 'up-a3',
    });
    expect(video.quantities).toMatchObject({ tier: '1080p', output_seconds: 5 });
    expect(data.find((e) => e.request_id === 'req_led_a2')!.amount).toBe(2 * FILE_IMAGE_PRICE);
  });

  it('ledger filters: model, time range (since inclusive, until exclusive), limit; bad input is 400', async () => {
    const byModel = await json<{ data: LedgerItem[] }>(await t.h.admin('/admin/ledger?model=text-embedding-v4'));
    expect(byModel.data.length).toBe(4);
    expect(byModel.data.every((e) => e.model === 'text-embedding-v4')).toBe(true);
    const jan = await json<{ data: LedgerItem[] }>(
      await t.h.admin(`/admin/ledger?token_id=${b.id}&since=2026-01-30&until=2026-02-01`),
    );
    expect(jan.data.map((e) => e.idempotency_key).sort()).toEqual(['old_b1', 'old_b2']);
    const ms = await json<{ data: LedgerItem[] }>(
      await t.h.admin(
        `/admin/ledger?token_id=${b.id}&since=${Date.parse('2026-02-01T00:00:00Z')}&until=2026-02-02T00:00:00Z`,
      ),
    );
    expect(ms.data.map((e) => e.idempotency_key)).toEqual(['old_b3']);
    const page = await json<{ data: LedgerItem[]; has_more: boolean; next_before_id: number }>(
      await t.h.admin(`/admin/ledger?token_id=${b.id}&limit=2`),
    );
    expect(page.data).toHaveLength(2);
    expect(page.has_more).toBe(true);
    const rest = await json<{ data: LedgerItem[] }>(
      await t.h.admin(`/admin/ledger?token_id=${b.id}&limit=10&before_id=${page.next_before_id}`),
    );
    expect(rest.data).toHaveLength(2);
    expect(new Set([...page.data, ...rest.data].map((e) => e.id)).size).toBe(4);
    for (const q of ['since=yesterday', 'limit=0', 'limit=abc', 'until=2026-01-01&since=2026-02-01']) {
      const e = await json<BErr>(await t.h.admin(`/admin/ledger?${q}`), 400);
      expect(e.error.code).toBe('invalid_parameter');
    }
  });

  it('bills per month and per day: totals equal the sum of ledger entries', async () => {
    const ledgerB = (await json<{ data: LedgerItem[] }>(await t.h.admin(`/admin/ledger?token_id=${b.id}&limit=1000`)))
      .data;
    const sumB = ledgerB.reduce((s, e) => s + e.amount, 0);
    const month = await json<{ data: BillLine[]; total: { amount: number; entries: number } }>(
      await t.h.admin(`/admin/bills?token_id=${b.id}&period=month`),
    );
    expect(month.total.amount).toBe(sumB);
    expect(month.total.entries).toBe(ledgerB.length);
    const jan = month.data.find((l) => l.period_start === '2026-01')!;
    expect(jan).toMatchObject({
      token_id: b.id,
      token_name: 'beta',
      period: 'month',
      entries: 2,
      amount: 3_000,
      amount_units: '0.003000',
    });
    expect(jan.models).toEqual({ 'text-embedding-v4': { entries: 2, amount: 3_000, amount_units: '0.003000' } });
    expect(month.data.find((l) => l.period_start === '2026-02')!.amount).toBe(4_000);

    const day = await json<{ data: BillLine[]; total: { amount: number } }>(
      await t.h.admin(`/admin/bills?token_id=${b.id}&period=day`),
    );
    expect(day.total.amount).toBe(sumB);
    expect(day.data.filter((l) => l.period_start.startsWith('2026-0')).map((l) => [l.period_start, l.amount])).toEqual([
      ['2026-01-30', 1_000],
      ['2026-01-31', 2_000],
      ['2026-02-01', 4_000],
    ]);

    // All tokens: the bill total is the sum of the whole ledger.
    const all = await json<{ total: { amount: number } }>(await t.h.admin('/admin/bills'));
    const ledgerAll = (await json<{ data: LedgerItem[] }>(await t.h.admin('/admin/ledger?limit=1000'))).data;
    expect(all.total.amount).toBe(ledgerAll.reduce((s, e) => s + e.amount, 0));
    const bad = await json<BErr>(await t.h.admin('/admin/bills?period=year'), 400);
    expect(bad.error.param).toBe('period');
  });

  it('CSV export parses, has a header row, quotes names with commas and quotes, and sums to the ledger', async () => {
    const r = await t.h.admin('/admin/bills?period=day&format=csv');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = parseCsv(await r.text());
    expect(rows[0]).toEqual([
      'token_id',
      'token_name',
      'period',
      'period_start',
      'entries',
      'amount_micro',
      'amount_units',
      'credit_micro',
    ]);
    const body = rows.slice(1);
    expect(body.every((row) => row.length === 8)).toBe(true);
    const aRows = body.filter((row) => row[0] === a.id);
    expect(aRows.length).toBeGreaterThan(0);
    expect(aRows[0]![1]).toBe('Acme, "R&D"');
    const ledgerAll = (await json<{ data: LedgerItem[] }>(await t.h.admin('/admin/ledger?limit=1000'))).data;
    expect(body.reduce((s, row) => s + Number(row[5]), 0)).toBe(ledgerAll.reduce((s, e) => s + e.amount, 0));
    const aLedger = ledgerAll.filter((e) => e.token_id === a.id).reduce((s, e) => s + e.amount, 0);
    expect(aRows.reduce((s, row) => s + Number(row[5]), 0)).toBe(aLedger);
    for (const row of body)
      expect(row[6]).toBe(`${Math.floor(Number(row[5]) / 1e6)}.${String(Number(row[5]) % 1e6).padStart(6, '0')}`);
  });

  it('GET /admin/logs returns the request log, filterable by request id and token, usage parsed', async () => {
    const r = await t.h.fetch('/v1/models', { token: a.secret });
    expect(r.status).toBe(200);
    const rid = r.headers.get('x-gateway-request-id')!;
    await t.h.fetch('/v1/models', { token: b.secret });
    const one = await json<{ data: Array<Record<string, unknown>> }>(await t.h.admin(`/admin/logs?request_id=${rid}`));
    expect(one.data).toHaveLength(1);
    expect(one.data[0]).toMatchObject({
      request_id: rid,
      token_id: a.id,
      endpoint: '/v1/models',
      method: 'GET',
      status: 200,
      amount: 0,
    });
    expect(typeof one.data[0]!.latency_ms).toBe('number');
    const byToken = await json<{ data: Array<{ token_id: string }> }>(await t.h.admin(`/admin/logs?token_id=${b.id}`));
    expect(byToken.data.length).toBeGreaterThan(0);
    expect(byToken.data.every((l) => l.token_id === b.id)).toBe(true);
    const none = await json<{ data: unknown[] }>(await t.h.admin(`/admin/logs?token_id=${a.id}&until=2000-01-01`));
    expect(none.data).toEqual([]);

    // Usage is stored as JSON and returned parsed.
    await t.h.store.db
      .insertInto('request_log')
      .values({
        request_id: 'req_log_usage',
        token_id: a.id,
        model: 'qwx3.7-plus',
        endpoint: '/v1/chat/completions',
        method: 'POST',
        status: 200,
        latency_ms: 12,
        usage: JSON.stringify({ prompt_tokens: 10, completion_tokens: 2 }),
        amount: 12,
        upstream_request_id: 'up-x',
        error_code: null,
        created_at: Date.now(),
      })
      .execute();
    const u = await json<{ data: Array<{ usage: unknown; model: string; upstream_request_id: string }> }>(
      await t.h.admin('/admin/logs?request_id=req_log_usage&model=qwx3.7-plus'),
    );
    expect(u.data[0]).toMatchObject({
      usage: { prompt_tokens: 10, completion_tokens: 2 },
      upstream_request_id: 'up-x',
    });
  });
});
