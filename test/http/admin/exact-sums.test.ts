// Report sums over ledger lines are exact past 2^53: bills, a token's and an account's usage and the reconciliation
// add as bigints and give a sum past Number.MAX_SAFE_INTEGER as a string of its digits (docs/metering.md) — on the
// store of the test run (SQLite, or PostgreSQL with TOLLWAY_TEST_DIALECT=postgres). The lines are written straight
// into the ledger: no balance reaches such sums through the meter (balance-bound.ts), many tokens' lines do.
import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_CHARGE } from '../../../src/pricing/prices.ts';
import { useHarness } from '../../support/harness.ts';
import { answeredLogRow, flushWriters } from '../../support/store-rows.ts';

const t = useHarness();
const MODEL = 'qwx3.7-plus';
// Twelve lines of MAX_CHARGE and one of 7: 12,000,000,000,000,007, past 2^53 (a float sum gives …008).
const LINES = 12;
const EXACT = String(BigInt(LINES) * BigInt(MAX_CHARGE) + 7n);
const AT = Date.now() - 60_000;

let tokens: string[];
let account: string;

const json = async <T>(r: Response): Promise<T> => {
  expect(r.status).toBeLessThan(300);
  return (await r.json()) as T;
};

beforeAll(async () => {
  account = (
    await json<{ id: string }>(await t.h.admin('/admin/accounts', { method: 'POST', json: { name: 'exact-sums' } }))
  ).id;
  tokens = [];
  for (let i = 0; i < 2; i++)
    tokens.push(
      (
        await json<{ id: string }>(
          await t.h.admin('/admin/tokens', { method: 'POST', json: { name: `exact-${i}`, account_id: account } }),
        )
      ).id,
    );
  const line = (i: number, amount: number) => ({
    idempotency_key: `exact_${i}`,
    token_id: tokens[i % 2]!,
    model: MODEL,
    kind: 'tokens',
    quantities: '{}',
    unit_prices: '{}',
    amount,
    request_id: `req_exact_${i}` as string | null,
    task_id: null,
    upstream_request_id: null,
    created_at: AT,
    account_id: account,
  });
  const rows = [...Array.from({ length: LINES }, (_, i) => line(i, MAX_CHARGE)), line(LINES, 7)];
  // Credits too: the first token's top-ups of one day, past 2^53 together (a quota lowered between them).
  const credit = (i: number, amount: number) => ({
    ...line(i, amount),
    token_id: tokens[0]!,
    kind: 'credit',
    model: '-',
    request_id: null,
  });
  rows.push(...Array.from({ length: LINES }, (_, i) => credit(100 + i, MAX_CHARGE)), credit(200, 7));
  await t.h.store.db.insertInto('ledger').values(rows).execute();
  // Each charge's request answered without reported usage: reconcile prices none of it (a charge with no request-log
  // row at all is told apart, and kept out of the difference).
  for (let i = 0; i <= LINES; i++)
    t.h.gw.deps.requestLog.write(
      answeredLogRow({ requestId: `req_exact_${i}`, tokenId: tokens[i % 2]!, model: MODEL, createdAt: AT }),
    );
  await flushWriters(t.h);
});

describe('sums of ledger lines past 2^53', () => {
  it('the bill total (and by=model) is exact, as a string of digits', async () => {
    for (const by of ['token', 'model']) {
      const bill = await json<{ total: { amount: number | string; amount_units: string; credit: number | string } }>(
        await t.h.admin(`/admin/bills?by=${by}&since=${AT - 1}`),
      );
      expect(bill.total.amount).toBe(EXACT);
      expect(bill.total.amount_units).toBe(`${EXACT.slice(0, -6)}.${EXACT.slice(-6)}`);
      expect(bill.total.credit).toBe(EXACT);
    }
  });

  it('the OpenAPI document describes such a total', async () => {
    type Doc = {
      paths: Record<
        string,
        {
          get: {
            responses: { '200': { content: { 'application/json': { schema: { properties: { total: object } } } } } };
          };
        }
      >;
    };
    const doc = await json<Doc>(await t.h.fetch('/openapi.json'));
    const valid = new Ajv({ strict: false }).compile(
      doc.paths['/admin/bills']!.get.responses['200'].content['application/json'].schema.properties.total,
    );
    const bill = await json<{ total: unknown }>(await t.h.admin(`/admin/bills?since=${AT - 1}`));
    expect(valid(bill.total), JSON.stringify(valid.errors)).toBe(true);
  });

  it("a token's usage: its credits are exact; its charges, below the bound, stay a number", async () => {
    const u = await json<{ usage: { total: { amount: number | string }; credited: number | string } }>(
      await t.h.admin(`/admin/tokens/${tokens[0]}/usage?since=${AT - 1}`),
    );
    expect(u.usage.credited).toBe(EXACT);
    // The first token holds lines 0, 2, …, 10 and 12 (the 7): 6 × MAX_CHARGE + 7, below 2^53.
    expect(u.usage.total.amount).toBe(6 * MAX_CHARGE + 7);
  });

  it("the account's usage (both tokens' lines) is exact", async () => {
    const u = await json<{
      usage: {
        data: Array<{ amount: number | string }>;
        total: { amount: number | string; list_amount: number | string };
        credited: number | string;
      };
    }>(await t.h.admin(`/admin/accounts/${account}/usage?since=${AT - 1}`));
    expect(u.usage.data[0]!.amount).toBe(EXACT);
    expect(u.usage.total).toMatchObject({ amount: EXACT, list_amount: EXACT });
    expect(u.usage.credited).toBe(EXACT);
  });

  it("the reconciliation's group sums and difference are exact", async () => {
    const r = await json<{
      groups: Array<{ model: string; ledger_amount: number | string; difference: number | string }>;
      difference: number | string;
    }>(await t.h.admin(`/admin/reconcile?from=${AT - 1}&to=${AT + 1}`));
    const g = r.groups.find((x) => x.model === MODEL)!;
    // No stored usage for these lines: all of the ledger's amount is the difference.
    expect(g.ledger_amount).toBe(EXACT);
    expect(g.difference).toBe(EXACT);
    expect(r.difference).toBe(EXACT);
  });
});
