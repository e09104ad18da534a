// The accounts repo's look-ups by many ids (account names for bills, tokens' accounts for the overview), past the
// run of ids one statement takes, and the ledger's totals per account and day — on the suite's dialect, SQLite or
// PostgreSQL.
import { expect, it } from 'vitest';
import { AccountsRepo } from '../../../src/store/repos/accounts.ts';
import { DAY_MS, LedgerRepo } from '../../../src/store/repos/ledger.ts';
import { useStore } from '../../support/store.ts';

const fresh = useStore();

const token = (id: string, accountId: string | null) => ({
  id,
  name: id,
  secret_hash: `h_${id}`,
  prefix: id.slice(0, 8),
  models: null,
  quota: null,
  rpm_limit: null,
  tpm_limit: null,
  concurrency_limit: null,
  expires_at: null,
  revoked_at: null,
  created_at: 1,
  previous_secret_hash: null,
  previous_secret_until: null,
  callback_secret: null,
  callback_secret_issued_at: null,
  previous_callback_secret: null,
  previous_callback_secret_until: null,
  account_id: accountId,
  budgets: null,
});

it("names and tokens' accounts are found for every id, across runs of 500; unknown ids and tokens of no account are left out", async () => {
  const repo = new AccountsRepo(fresh.store.db);
  const accounts = await Promise.all(
    Array.from({ length: 3 }, (_, i) =>
      repo.create({
        id: `acc_${i}`,
        name: `Account ${i}`,
        quota: null,
        budgets: [],
        priceGroup: null,
        timeZone: null,
        expiresAt: null,
      }),
    ),
  );
  // 1,201 tokens: every third of no account, the others spread over the three accounts.
  const rows = Array.from({ length: 1201 }, (_, i) =>
    token(`tok_${String(i).padStart(5, '0')}`, i % 3 === 0 ? null : `acc_${i % 3}`),
  );
  for (let i = 0; i < rows.length; i += 200)
    await fresh.store.db
      .insertInto('tokens')
      .values(rows.slice(i, i + 200))
      .execute();
  const owners = await repo.ofTokens([...rows.map((r) => r.id), 'tok_nobody']);
  expect(owners.size).toBe(rows.filter((r) => r.account_id !== null).length);
  for (const r of rows)
    expect(owners.get(r.id)).toEqual(
      r.account_id === null ? undefined : { id: r.account_id, name: `Account ${r.account_id.slice(4)}` },
    );
  const names = await repo.names([
    ...Array.from({ length: 700 }, (_, i) => `acc_missing_${i}`),
    ...accounts.map((a) => a.id),
  ]);
  expect([...names].sort()).toEqual(accounts.map((a) => [a.id, a.name]));
  expect((await repo.ofTokens([])).size).toBe(0);
});

it("the ledger's totals per account, model and UTC day: charges and credits apart, lines of no account under null, filtered by account", async () => {
  const day = 20_000;
  const line = (
    n: number,
    accountId: string | null,
    kind: string,
    amount: number,
    at: number,
    list: number | null = null,
  ) => ({
    idempotency_key: `k${n}`,
    token_id: 'tok_a',
    model: kind === 'credit' ? '-' : 'm',
    kind,
    quantities: '{}',
    unit_prices: '{}',
    amount,
    request_id: null,
    task_id: null,
    upstream_request_id: null,
    created_at: at,
    account_id: accountId,
    list_amount: list,
    price_group: null,
  });
  await fresh.store.db
    .insertInto('ledger')
    .values([
      line(1, 'acc_x', 'tokens', 100, day * DAY_MS + 5, 150),
      line(2, 'acc_x', 'tokens', 30, day * DAY_MS + 9),
      line(3, 'acc_x', 'credit', 1000, day * DAY_MS + 10),
      line(4, 'acc_x', 'tokens', 7, (day + 1) * DAY_MS),
      line(5, null, 'tokens', 11, day * DAY_MS + 1),
    ])
    .execute();
  const ledger = new LedgerRepo(fresh.store.db);
  const sort = <T extends { accountId: string | null; model: string; day: number }>(xs: T[]) =>
    xs.sort(
      (a, b) => (a.accountId ?? '').localeCompare(b.accountId ?? '') || a.day - b.day || a.model.localeCompare(b.model),
    );
  const all = sort(await ledger.accountDayTotals({ since: day * DAY_MS, until: (day + 2) * DAY_MS }));
  const zero = { entries: 0, amount: 0, listAmount: 0, credits: 0, credit: 0 };
  expect(all).toEqual([
    { ...zero, accountId: null, model: 'm', day, entries: 1, amount: 11, listAmount: 11 },
    { ...zero, accountId: 'acc_x', model: '-', day, credits: 1, credit: 1000 },
    { ...zero, accountId: 'acc_x', model: 'm', day, entries: 2, amount: 130, listAmount: 180 },
    { ...zero, accountId: 'acc_x', model: 'm', day: day + 1, entries: 1, amount: 7, listAmount: 7 },
  ]);
  expect(
    sort(await ledger.accountDayTotals({ accountId: 'acc_x', until: (day + 1) * DAY_MS })).map(
      (d) => Number(d.amount) + Number(d.credit),
    ),
  ).toEqual([1000, 130]);
  expect((await ledger.dayTotals({ accountId: 'acc_x' })).reduce((s, d) => s + Number(d.amount), 0)).toBe(137);
});
