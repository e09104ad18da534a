// Bills from the ledger: per token (or every token) and UTC day or month — the amount per period as a chart, the
// spend per model, the bill lines per model and the top-ups apart — or grouped by account (a line per account and
// period), for every account or one; with CSV (per model, per token or per account) and JSON downloads (plain links:
// a GET with the session cookie).
import { useMemo, useState } from 'preact/hooks';
import { call, callAll, qs } from '../api.ts';
import { Chart } from '../chart.tsx';
import { count, fromLocalInput, units } from '../format.ts';
import type { Account, BillByAccountView, BillByModelView, BillPeriod, Token } from '../types.ts';
import { useLoad } from '../use-load.ts';
import { AccountLines } from './bills/account-lines.tsx';
import { BillLines, ModelTotals, TopUps } from './bills/bill-tables.tsx';
import { Name } from '../name.tsx';

interface Filter {
  period: BillPeriod;
  by: 'token' | 'account';
  token_id: string;
  account_id: string;
  since: string;
  until: string;
}

/** The start of a period label (YYYY-MM-DD or YYYY-MM, UTC) in ms. */
const periodTime = (k: string) => Date.parse(k.length === 7 ? `${k}-01T00:00:00Z` : `${k}T00:00:00Z`);

export function Bills({ query }: { query: URLSearchParams }) {
  const [form, setForm] = useState<Filter>({
    period: 'day',
    by: query.get('by') === 'account' ? 'account' : 'token',
    token_id: query.get('token_id') ?? '',
    account_id: query.get('account_id') ?? '',
    since: '',
    until: '',
  });
  const [filter, setFilter] = useState<Filter>(form);
  const tokens = useLoad(() => callAll<Token>('/admin/tokens'), []);
  const accounts = useLoad(() => callAll<Account>('/admin/accounts'), []);
  const params = {
    period: filter.period,
    token_id: filter.token_id,
    account_id: filter.account_id,
    since: fromLocalInput(filter.since),
    until: fromLocalInput(filter.until),
  };
  const bill = useLoad<BillByModelView | BillByAccountView>(
    () => call(`/admin/bills${qs({ ...params, by: filter.by === 'account' ? 'account' : 'model' })}`),
    [filter],
  );
  const chart = useMemo(() => {
    const by = new Map<string, number>();
    const data = bill.data;
    const charges =
      data === null ? [] : data.by === 'account' ? data.data : data.data.filter((l) => l.kind === 'charges');
    for (const l of charges) by.set(l.period_start, (by.get(l.period_start) ?? 0) + Number(l.amount));
    const keys = [...by.keys()].sort();
    return {
      times: keys.map(periodTime),
      lines: [{ label: 'Amount', values: keys.map((k) => by.get(k)!), color: '#1d8a5a', format: units }],
    };
  }, [bill.data]);
  const set = (k: keyof Filter) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) =>
    setForm({ ...form, [k]: e.currentTarget.value });
  const known = tokens.data ?? [];
  const knownAccounts = accounts.data ?? [];
  const download = (extra: Record<string, string>) => `/admin/bills${qs({ ...params, ...extra })}`;
  return (
    <section>
      <h1 tabIndex={-1}>Bills</h1>
      <form
        class="card filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(form);
        }}
        aria-label="Bill filter"
      >
        <div class="field">
          <label for="bill-period">Period</label>
          <select id="bill-period" value={form.period} onChange={set('period')}>
            <option value="day">Day</option>
            <option value="month">Month</option>
          </select>
        </div>
        <div class="field">
          <label for="bill-by">Group by</label>
          <select id="bill-by" value={form.by} onChange={set('by')}>
            <option value="token">Token and model</option>
            <option value="account">Account</option>
          </select>
        </div>
        <div class="field">
          <label for="bill-account">Account</label>
          <select id="bill-account" value={form.account_id} onChange={set('account_id')}>
            <option value="">Every account (and none)</option>
            {form.account_id && !knownAccounts.some((a) => a.id === form.account_id) && (
              <option value={form.account_id}>{form.account_id}</option>
            )}
            {knownAccounts.map((a) => (
              <option key={a.id} value={a.id}>
                <Name value={a.name} /> ({a.id})
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="bill-token">Token</label>
          <select id="bill-token" value={form.token_id} onChange={set('token_id')}>
            <option value="">Every token</option>
            {form.token_id && !known.some((t) => t.id === form.token_id) && (
              <option value={form.token_id}>{form.token_id}</option>
            )}
            {known.map((t) => (
              <option key={t.id} value={t.id}>
                <Name value={t.name} /> ({t.id})
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="bill-since">From</label>
          <input id="bill-since" type="datetime-local" value={form.since} onInput={set('since')} />
        </div>
        <div class="field">
          <label for="bill-until">Until</label>
          <input id="bill-until" type="datetime-local" value={form.until} onInput={set('until')} />
        </div>
        <div class="field end">
          <button type="submit">Show</button>
        </div>
      </form>
      {filter.by === 'account' ? (
        <p class="actions">
          <a href={download({ format: 'csv', by: 'account' })} download>
            Download CSV per account
          </a>
          <a href={download({ format: 'json', by: 'account' })} download="tollway-bill-by-account.json">
            Download JSON
          </a>
        </p>
      ) : (
        <p class="actions">
          <a href={download({ format: 'csv', by: 'model' })} download>
            Download CSV per model
          </a>
          <a href={download({ format: 'csv' })} download>
            Download CSV per token
          </a>
          <a href={download({ format: 'json', by: 'model' })} download="tollway-bill.json">
            Download JSON
          </a>
        </p>
      )}
      {bill.error && (
        <p role="alert" class="error">
          {bill.error}
        </p>
      )}
      {bill.data && (
        <>
          <p class="muted" id="bill-total">
            {count(bill.data.total.entries, 'entry', 'entries')}, {units(bill.data.total.amount)} in all
            {Number(bill.data.total.credit) > 0 ? `; ${units(bill.data.total.credit)} added by top-ups` : ''}
          </p>
          {chart.times.length > 0 && (
            <div class="card">
              <Chart
                label={`Amount per ${filter.period}: ${units(bill.data.total.amount)} in all`}
                times={chart.times}
                lines={chart.lines}
                bars
              />
            </div>
          )}
          {bill.data.by === 'account' ? (
            <AccountLines lines={bill.data.data} total={Number(bill.data.total.amount)} period={bill.data.period} />
          ) : (
            <>
              <ModelTotals lines={bill.data.data} total={Number(bill.data.total.amount)} />
              <BillLines lines={bill.data.data} period={bill.data.period} />
              <TopUps lines={bill.data.data} period={bill.data.period} />
            </>
          )}
        </>
      )}
    </section>
  );
}
