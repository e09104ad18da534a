// Bills and the overview grouped by account (GET /admin/bills?by=account, account_id=; GET /admin/stats?group_by=
// account), on the store of the test run (SQLite, or PostgreSQL with TOLLWAY_TEST_DIALECT=postgres). Charges are
// made through the official openai SDK; each line counts against the account its ledger line names, so a token moved
// to another account leaves its past charges where they were.
import { beforeAll, describe, expect, it } from 'vitest';
import type { BillByAccountView, BillView } from '../../../src/core/views.ts';
import { expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';
import { openaiClient } from '../../support/sdk.ts';

const t = useHarness();
const IMAGE = 'qwx-image-2.0';

async function json<T>(r: Response): Promise<T> {
  expect(r.status).toBe(200);
  return (await r.json()) as T;
}
const post = async <T>(path: string, body: unknown): Promise<T> =>
  (await t.h.admin(path, { method: 'POST', json: body })).json() as Promise<T>;
const image = (token: string) => openaiClient(t.h, token).images.generate({ model: IMAGE, prompt: 'a cat', n: 1 });
type Ledger = { data: Array<{ token_id: string; kind: string; amount: number }> };

let accA = '';
let accB = '';
let a1 = { id: '', token: '' };
let a2 = { id: '', token: '' };
let plain = { id: '', token: '' };
let price = 0;

beforeAll(async () => {
  accA = (await post<{ id: string }>('/admin/accounts', { name: 'Acme, "Inc"', quota: 50_000_000 })).id;
  accB = (await post<{ id: string }>('/admin/accounts', { name: 'Beta' })).id;
  a1 = await post('/admin/tokens', { name: 'a-one', account_id: accA });
  a2 = await post('/admin/tokens', { name: 'a-two', account_id: accA });
  plain = await post('/admin/tokens', { name: 'no-account', quota: 9_000_000 });
  await image(a1.token);
  await image(a1.token);
  await image(a2.token);
  await image(plain.token);
  expect(
    (
      await t.h.admin(`/admin/accounts/${accA}/topup`, {
        method: 'POST',
        json: { amount: 4_000_000, idempotency_key: 'acc-bill' },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await t.h.admin(`/admin/tokens/${plain.id}/topup`, {
        method: 'POST',
        json: { amount: 1_000_000, idempotency_key: 'tok-bill' },
      })
    ).status,
  ).toBe(200);
  // a2 moves to B: its charge above stays with A, the one after counts for B.
  expect((await t.h.admin(`/admin/tokens/${a2.id}`, { method: 'PATCH', json: { account_id: accB } })).status).toBe(200);
  await image(a2.token);
  const ledger = await json<Ledger>(await t.h.admin(`/admin/ledger?token_id=${a1.id}`));
  price = ledger.data[0]!.amount;
  expect(price).toBeGreaterThan(0);
});

describe('GET /admin/bills?by=account', () => {
  it("a line per account and period: its tokens' charges when they were made, its own top-ups; no account on a line of its own; the total is the whole bill's", async () => {
    const bill = await json<BillByAccountView>(await t.h.admin('/admin/bills?by=account&period=month'));
    const plainBill = await json<BillView>(await t.h.admin('/admin/bills?period=month'));
    expect(bill.by).toBe('account');
    expect(bill.total).toEqual(plainBill.total);
    const month = new Date().toISOString().slice(0, 7);
    const models = (n: number) => ({ [IMAGE]: { entries: n, amount: n * price, amount_units: expect.any(String) } });
    const lastDay = expect.stringMatching(new RegExp(`^${month}-(28|29|30|31)$`));
    const base = { period: 'month', period_start: month, first_day: `${month}-01`, last_day: lastDay };
    expect(bill.data.filter((l) => [accA, accB, null].includes(l.account_id))).toEqual([
      ...[
        {
          ...base,
          account_id: accA,
          account_name: 'Acme, "Inc"',
          entries: 3,
          amount: 3 * price,
          amount_units: expect.any(String),
          list_amount: 3 * price,
          models: models(3),
          credits: { entries: 1, amount: 4_000_000 },
        },
        {
          ...base,
          account_id: accB,
          account_name: 'Beta',
          entries: 1,
          amount: price,
          amount_units: expect.any(String),
          list_amount: price,
          models: models(1),
          credits: { entries: 0, amount: 0 },
        },
      ].sort((x, y) => x.account_id.localeCompare(y.account_id)),
      // No account last: the plain token's charge and its own top-up.
      {
        ...base,
        account_id: null,
        account_name: null,
        entries: 1,
        amount: price,
        amount_units: expect.any(String),
        list_amount: price,
        models: models(1),
        credits: { entries: 1, amount: 1_000_000 },
      },
    ]);
  });

  it('account_id= keeps the lines that counted against that account, by account and by token', async () => {
    const onlyA = await json<BillByAccountView>(
      await t.h.admin(`/admin/bills?by=account&account_id=${accA}&period=day`),
    );
    expect(onlyA.data.map((l) => [l.account_id, l.entries, l.amount, l.credits.amount])).toEqual([
      [accA, 3, 3 * price, 4_000_000],
    ]);
    expect(onlyA.total).toEqual({
      entries: 3,
      amount: 3 * price,
      amount_units: onlyA.data[0]!.amount_units,
      credit: 4_000_000,
    });
    const byToken = await json<BillView>(await t.h.admin(`/admin/bills?account_id=${accA}&period=day`));
    // a2's charge made while it was A's is there; the account's top-up is the line that names the account.
    expect(byToken.data.map((l) => [l.token_id, l.entries, l.credits.amount]).sort()).toEqual(
      [
        [a1.id, 2, 0],
        [a2.id, 1, 0],
        [accA, 0, 4_000_000],
      ].sort(),
    );
    const none = await json<BillByAccountView>(await t.h.admin('/admin/bills?by=account&account_id=acc_nobody'));
    expect(none.data).toEqual([]);
  });

  it('as CSV: a row per account and period, formula-like names defused', async () => {
    await t.h.admin(`/admin/accounts/${accB}`, { method: 'PATCH', json: { name: '=SUM(A1)' } });
    const r = await t.h.admin(`/admin/bills?by=account&period=month&format=csv&account_id=${accB}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="tollway-bill-month-by-account.csv"');
    const rows = (await r.text()).split('\r\n').filter(Boolean);
    expect(rows).toEqual([
      'account_id,account_name,period,period_start,entries,amount_micro,amount_units,list_amount_micro,credit_micro',
      `${accB},'=SUM(A1),month,${new Date().toISOString().slice(0, 7)},1,${price},${(price / 1e6).toFixed(6)},${price},0`,
    ]);
  });

  it('refuses an unknown grouping in the family B shape', async () => {
    await expectB(await t.h.admin('/admin/bills?by=customer'), 400, 'invalid_parameter');
  });
});

describe('GET /admin/stats?group_by=account', () => {
  type Top = { account_id: string | null; name: string | null; requests: number; errors: number; spend: number };
  it("folds each token's figures into the account it belongs to now; requests of no account on one row", async () => {
    const s = await json<{ top_accounts: Top[]; top_tokens: unknown[] }>(
      await t.h.admin('/admin/stats?window=1h&group_by=account'),
    );
    const row = (id: string | null) => s.top_accounts.find((a) => a.account_id === id);
    // a1's two calls; a2 belongs to B now, so its two calls count there.
    expect(row(accA)).toEqual({ account_id: accA, name: 'Acme, "Inc"', requests: 2, errors: 0, spend: 2 * price });
    expect(row(accB)).toMatchObject({ requests: 2, spend: 2 * price });
    expect(row(null)).toMatchObject({ name: null, requests: expect.any(Number) });
    expect(s.top_tokens.length).toBeGreaterThan(0);
  });

  it('answers no top_accounts unless asked; refuses an unknown grouping or parameter', async () => {
    expect(await json<Record<string, unknown>>(await t.h.admin('/admin/stats?window=1h'))).not.toHaveProperty(
      'top_accounts',
    );
    await expectB(await t.h.admin('/admin/stats?group_by=model'), 400, 'invalid_parameter');
    await expectB(await t.h.admin('/admin/stats?windows=1h'), 400, 'invalid_parameter');
  });
});
