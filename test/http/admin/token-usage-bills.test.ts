// The operator's view of one token's usage (GET /admin/tokens/{id}/usage) and the bill per model (by=model, JSON and
// CSV) — on the store of the test run (SQLite, or PostgreSQL with TOLLWAY_TEST_DIALECT=postgres).
import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BillByModelView, BillView, TokenUsageView } from '../../../src/core/views.ts';
import { expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';

const t = useHarness();
const CHAT = 'qwx3.7-plus';
const EMBED = 'text-embedding-v4';

const json = async <T>(r: Response): Promise<T> => {
  expect(r.status).toBe(200);
  return (await r.json()) as T;
};
type LedgerRow = { kind: string; model: string; amount: number };

let tok: { id: string; token: string };
let other: { id: string; token: string };
let ledger: LedgerRow[];

beforeAll(async () => {
  const make = async (name: string) =>
    (await (await t.h.admin('/admin/tokens', { method: 'POST', json: { name, quota: 50_000_000 } })).json()) as {
      id: string;
      token: string;
    };
  tok = await make('usage, "billed"');
  other = await make('someone-else');
  const post = (token: string, path: string, body: unknown) => t.h.fetch(path, { method: 'POST', token, json: body });
  for (let i = 0; i < 2; i++)
    expect(
      (
        await post(tok.token, '/v1/chat/completions', {
          model: CHAT,
          messages: [{ role: 'user', content: `hello ${i}` }],
        })
      ).status,
    ).toBe(200);
  expect((await post(tok.token, '/v1/embeddings', { model: EMBED, input: 'some words to embed' })).status).toBe(200);
  expect(
    (
      await post(other.token, '/v1/chat/completions', {
        model: CHAT,
        messages: [{ role: 'user', content: 'not yours' }],
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await t.h.admin(`/admin/tokens/${tok.id}/topup`, {
        method: 'POST',
        json: { amount: 7_000_000, idempotency_key: 'usage-test' },
      })
    ).status,
  ).toBe(200);
  ledger = (await json<{ data: LedgerRow[] }>(await t.h.admin(`/admin/ledger?token_id=${tok.id}`))).data;
});

const charged = (model: string) => ledger.filter((l) => l.kind !== 'credit' && l.model === model);
const sum = (rows: LedgerRow[]) => rows.reduce((s, l) => s + l.amount, 0);

describe('GET /admin/tokens/{id}/usage', () => {
  it('is the balance and per-model charges of that token alone — the figures its holder reads at /v1/usage', async () => {
    const admin = await json<TokenUsageView>(await t.h.admin(`/admin/tokens/${tok.id}/usage`));
    const holder = await json<TokenUsageView>(await t.h.fetch('/v1/usage', { token: tok.token }));
    // The same figures (the period's default end is "now", read apart by each call).
    expect({ ...admin, period: admin.period.since }).toEqual({ ...holder, period: holder.period.since });
    expect(admin.token).toMatchObject({ id: tok.id, name: 'usage, "billed"' });
    expect(admin.usage.data).toEqual([
      { model: CHAT, entries: 2, requests: 2, amount: sum(charged(CHAT)), amount_units: expect.any(String) },
      { model: EMBED, entries: 1, requests: 1, amount: sum(charged(EMBED)), amount_units: expect.any(String) },
    ]);
    expect(admin.usage.credited).toBe(7_000_000);
    const used = sum(charged(CHAT)) + sum(charged(EMBED));
    expect(admin.balance).toEqual({
      quota: 57_000_000,
      spent: used,
      held: 0,
      remaining: 57_000_000 - used,
      used,
      reserved: 0,
    });
  });

  it('takes a period; refuses unknown parameters, a reversed period and an unknown token in the family B shape', async () => {
    const later = await json<TokenUsageView>(
      await t.h.admin(`/admin/tokens/${tok.id}/usage?since=${Date.now() + 60_000}&until=${Date.now() + 120_000}`),
    );
    expect(later.usage.data).toEqual([]);
    expect(later.usage.credited).toBe(0);
    expect(later.balance.quota).toBe(57_000_000);
    await expectB(await t.h.admin(`/admin/tokens/${tok.id}/usage?token_id=${other.id}`), 400, 'invalid_parameter');
    await expectB(
      await t.h.admin(`/admin/tokens/${tok.id}/usage?since=2026-02-01&until=2026-01-01`),
      400,
      'invalid_parameter',
    );
    await expectB(await t.h.admin('/admin/tokens/tok_nope/usage'), 404, 'not_found');
    // A client token cannot read it, not even its own.
    expect((await t.h.fetch(`/admin/tokens/${tok.id}/usage`, { token: tok.token })).status).toBe(403);
  });
});

describe('GET /admin/bills by model', () => {
  it('the JSON lines: one per model with its charges and amount, the top-ups on a credit line apart; totals as the plain bill', async () => {
    const plain = await json<BillView>(await t.h.admin(`/admin/bills?token_id=${tok.id}&period=month`));
    const byModel = await json<BillByModelView>(
      await t.h.admin(`/admin/bills?token_id=${tok.id}&period=month&by=model`),
    );
    expect(byModel.by).toBe('model');
    expect(byModel.total).toEqual(plain.total);
    const month = plain.data[0]!.period_start;
    const days = { first_day: plain.data[0]!.first_day, last_day: plain.data[0]!.last_day };
    expect(days.first_day).toBe(`${month}-01`);
    const base = { token_id: tok.id, token_name: 'usage, "billed"', period: 'month', period_start: month, ...days };
    expect(byModel.data).toEqual([
      {
        ...base,
        kind: 'charges',
        model: CHAT,
        entries: 2,
        amount: sum(charged(CHAT)),
        amount_units: plain.data[0]!.models[CHAT]!.amount_units,
      },
      {
        ...base,
        kind: 'charges',
        model: EMBED,
        entries: 1,
        amount: sum(charged(EMBED)),
        amount_units: plain.data[0]!.models[EMBED]!.amount_units,
      },
      { ...base, kind: 'credit', model: null, entries: 1, amount: 7_000_000, amount_units: '7.000000' },
    ]);
    // The plain bill's models carry their amount in units too.
    expect(Number(plain.data[0]!.models[CHAT]!.amount_units) * 1_000_000).toBeCloseTo(sum(charged(CHAT)), 0);
    // Both answers validate against the schema the server serves for their lines (a strict validator included).
    const doc = await json<{
      paths: Record<
        string,
        {
          get: {
            responses: {
              '200': { content: { 'application/json': { schema: { properties: { data: { items: object } } } } } };
            };
          };
        }
      >;
    }>(await t.h.fetch('/openapi.json'));
    const validLine = new Ajv({ strict: false }).compile(
      doc.paths['/admin/bills']!.get.responses['200'].content['application/json'].schema.properties.data.items,
    );
    for (const line of [...plain.data, ...byModel.data])
      expect(validLine(line), JSON.stringify(validLine.errors)).toBe(true);
  });

  it('the CSV: a header row and a row per model and credit line, names quoted, amounts as in the JSON', async () => {
    const r = await t.h.admin(`/admin/bills?token_id=${tok.id}&period=day&by=model&format=csv`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="tollway-bill-day-by-model.csv"');
    const rows = (await r.text()).split('\r\n').filter(Boolean);
    expect(rows[0]).toBe('token_id,token_name,period,period_start,kind,model,entries,amount_micro,amount_units');
    const day = new Date().toISOString().slice(0, 10);
    const lines = rows.slice(1).map((row) => row.replace(`"usage, ""billed"""`, 'NAME').split(','));
    expect(lines.map((c) => c.slice(0, 8))).toEqual([
      [tok.id, 'NAME', 'day', day, 'charges', CHAT, '2', String(sum(charged(CHAT)))],
      [tok.id, 'NAME', 'day', day, 'charges', EMBED, '1', String(sum(charged(EMBED)))],
      [tok.id, 'NAME', 'day', day, 'credit', '', '1', '7000000'],
    ]);
    // Every token's lines without a token filter; the other token's charge is its own line.
    const all = await (await t.h.admin('/admin/bills?period=day&by=model&format=csv')).text();
    expect(all.split('\r\n').filter((l) => l.startsWith(other.id))).toHaveLength(1);
    await expectB(await t.h.admin('/admin/bills?by=tokens'), 400, 'invalid_parameter');
  });
});
