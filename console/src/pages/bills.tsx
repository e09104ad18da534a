// Bills from the ledger: per token (or every token) and UTC day or month — the amount per period as a chart, the
// spend per model, the bill lines per model and the top-ups apart — with CSV (per model or per token) and JSON
// downloads (plain links: a GET with the session cookie).
import { useMemo, useState } from 'preact/hooks';
import { call, callAll, qs } from '../api.ts';
import { Chart } from '../chart.tsx';
import { count, fromLocalInput, units } from '../format.ts';
import type { BillByModelView, BillPeriod, Token } from '../types.ts';
import { useLoad } from '../use-load.ts';
import { BillLines, ModelTotals, TopUps } from './bills/bill-tables.tsx';

interface Filter {
  period: BillPeriod;
  token_id: string;
  since: string;
  until: string;
}

/** The start of a period label (YYYY-MM-DD or YYYY-MM, UTC) in ms. */
const periodTime = (k: string) => Date.parse(k.length === 7 ? `${k}-01T00:00:00Z` : `${k}T00:00:00Z`);

export function Bills({ query }: { query: URLSearchParams }) {
  const [form, setForm] = useState<Filter>({ period: 'day', token_id: query.get('token_id') ?? '', since: '', until: '' });
  const [filter, setFilter] = useState<Filter>(form);
  const tokens = useLoad(() => callAll<Token>('/admin/tokens'), []);
  const params = { period: filter.period, token_id: filter.token_id, since: fromLocalInput(filter.since), until: fromLocalInput(filter.until) };
  const bill = useLoad(() => call<BillByModelView>(`/admin/bills${qs({ ...params, by: 'model' })}`), [filter]);
  const chart = useMemo(() => {
    const by = new Map<string, number>();
    for (const l of bill.data?.data ?? []) if (l.kind === 'charges') by.set(l.period_start, (by.get(l.period_start) ?? 0) + Number(l.amount));
    const keys = [...by.keys()].sort();
    return { times: keys.map(periodTime), lines: [{ label: 'Amount', values: keys.map((k) => by.get(k)!), color: '#1d8a5a', format: units }] };
  }, [bill.data]);
  const set = (k: keyof Filter) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) => setForm({ ...form, [k]: e.currentTarget.value });
  const known = tokens.data ?? [];
  const download = (extra: Record<string, string>) => `/admin/bills${qs({ ...params, ...extra })}`;
  return (
    <section>
      <h1 tabIndex={-1}>Bills</h1>
      <form class="card filters" onSubmit={(e) => (e.preventDefault(), setFilter(form))} aria-label="Bill filter">
        <div class="field">
          <label for="bill-period">Period</label>
          <select id="bill-period" value={form.period} onChange={set('period')}>
            <option value="day">Day</option>
            <option value="month">Month</option>
          </select>
        </div>
        <div class="field">
          <label for="bill-token">Token</label>
          <select id="bill-token" value={form.token_id} onChange={set('token_id')}>
            <option value="">Every token</option>
            {form.token_id && !known.some((t) => t.id === form.token_id) && <option value={form.token_id}>{form.token_id}</option>}
            {known.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name} ({t.id})
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
      {bill.error && <p role="alert" class="error">{bill.error}</p>}
      {bill.data && (
        <>
          <p class="muted" id="bill-total">
            {count(bill.data.total.entries, 'charge')}, {units(bill.data.total.amount)} in all
            {Number(bill.data.total.credit) > 0 ? `; ${units(bill.data.total.credit)} added by top-ups` : ''}
          </p>
          {chart.times.length > 0 && (
            <div class="card">
              <Chart label={`Amount per ${filter.period}: ${units(bill.data.total.amount)} in all`} times={chart.times} lines={chart.lines} bars />
            </div>
          )}
          <ModelTotals lines={bill.data.data} total={Number(bill.data.total.amount)} />
          <BillLines lines={bill.data.data} period={filter.period} />
          <TopUps lines={bill.data.data} period={filter.period} />
        </>
      )}
    </section>
  );
}
