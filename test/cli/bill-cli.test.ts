// `tollway bill …` as an operator runs it (bin/tollway.mjs), against a real gateway on the suite's dialect: the admin
// API's bills — here grouped by account and filtered to one, as JSON, CSV and text — with its validation.
import { beforeAll, describe, expect, it } from 'vitest';
import { AccountsRepo } from '../../src/store/repos/accounts.ts';
import { tollway as run } from '../support/cli.ts';
import { useHarness } from '../support/harness.ts';

const ctx = useHarness({ channels: false });
const tollway = (args: string[]) => run(ctx.h, args);
const DAY = Date.UTC(2026, 2, 14, 12);

beforeAll(async () => {
  await new AccountsRepo(ctx.h.store.db).create({
    id: 'acc_cli',
    name: 'Acme',
    quota: null,
    budgets: [],
    priceGroup: null,
    timeZone: null,
    expiresAt: null,
  });
  const line = (n: number, accountId: string | null, amount: number, kind = 'tokens') => ({
    idempotency_key: `cli${n}`,
    token_id: accountId === null ? 'tok_loose' : 'tok_acme',
    model: kind === 'credit' ? '-' : 'qwx3.7-plus',
    kind,
    quantities: '{}',
    unit_prices: '{}',
    amount,
    request_id: null,
    task_id: null,
    upstream_request_id: null,
    created_at: DAY + n,
    account_id: accountId,
    list_amount: null,
    price_group: null,
  });
  await ctx.h.store.db
    .insertInto('ledger')
    .values([line(1, 'acc_cli', 300), line(2, 'acc_cli', 200), line(3, 'acc_cli', 5_000, 'credit'), line(4, null, 70)])
    .execute();
});

describe('tollway bill', { timeout: 240_000 }, () => {
  it('groups by account as JSON (lines of no account apart) and as CSV for one account', async () => {
    const json = await tollway(['bill', '--by', 'account', '--period', 'day', '--since', '2026-03-01', '--json']);
    expect(json.stderr).toBe('');
    const bill = JSON.parse(json.stdout) as {
      by: string;
      data: Array<{
        account_id: string | null;
        account_name: string | null;
        entries: number;
        amount: number;
        credits: { amount: number };
      }>;
      total: { amount: number };
    };
    expect(bill.by).toBe('account');
    expect(bill.data.map((l) => [l.account_id, l.account_name, l.entries, l.amount, l.credits.amount])).toEqual([
      ['acc_cli', 'Acme', 2, 500, 5_000],
      [null, null, 1, 70, 0],
    ]);
    expect(bill.total.amount).toBe(570);
    const csv = await tollway(['bill', '--by', 'account', '--account', 'acc_cli', '--format', 'csv']);
    expect(csv.code).toBe(0);
    expect(csv.stdout).toBe(
      'account_id,account_name,period,period_start,entries,amount_micro,amount_units,list_amount_micro,credit_micro\r\nacc_cli,Acme,month,2026-03,2,500,0.000500,500,5000\r\n',
    );
  });

  it("refuses an unknown grouping in one line with the admin API's words", async () => {
    const r = await tollway(['bill', '--by', 'customer']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(
      /^tollway: by must be one of token, model, account \(HTTP 400 invalid_parameter, request req_\w+\)$/,
    );
  });
});
