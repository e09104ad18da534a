// Bills from the ledger: per token and UTC day or month, as a chart and a table, with CSV and JSON downloads
// (plain links: a GET with the session cookie).
import { useMemo, useState } from 'preact/hooks';
import { call, qs } from '../api.ts';
import { Chart } from '../chart.tsx';
import { fromLocalInput, num, units } from '../format.ts';
import { useLoad } from '../use-load.ts';

interface BillLine {
  token_id: string;
  token_name: string | null;
  period_start: string;
  entries: number;
  amount: number;
  amount_units: string;
}

interface Bill {
  period: 'day' | 'month';
  data: BillLine[];
  total: { entries: number; amount: number; amount_units: string };
}

interface Filter {
  period: 'day' | 'month';
  token_id: string;
  since: string;
  until: string;
}

export function Bills() {
  const [form, setForm] = useState<Filter>({ period: 'day', token_id: '', since: '', until: '' });
  const [filter, setFilter] = useState<Filter>(form);
  const params = { period: filter.period, token_id: filter.token_id.trim(), since: fromLocalInput(filter.since), until: fromLocalInput(filter.until) };
  const bill = useLoad(() => call<Bill>(`/admin/bills${qs(params)}`), [filter]);
  const chart = useMemo(() => {
    const by = new Map<string, number>();
    for (const l of bill.data?.data ?? []) by.set(l.period_start, (by.get(l.period_start) ?? 0) + l.amount);
    const keys = [...by.keys()].sort();
    return { times: keys.map((k) => Date.parse(k.length === 7 ? `${k}-01T00:00:00Z` : `${k}T00:00:00Z`)), lines: [{ label: 'Amount', values: keys.map((k) => by.get(k)!), color: '#1d8a5a', format: units }] };
  }, [bill.data]);
  const set = (k: keyof Filter) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) => setForm({ ...form, [k]: e.currentTarget.value });
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
          <label for="bill-token">Token id</label>
          <input id="bill-token" value={form.token_id} onInput={set('token_id')} />
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
        <a href={`/admin/bills${qs({ ...params, format: 'csv' })}`} download>
          Download CSV
        </a>
        <a href={`/admin/bills${qs({ ...params, format: 'json' })}`} download="tollway-bill.json">
          Download JSON
        </a>
      </p>
      {bill.error && <p role="alert" class="error">{bill.error}</p>}
      {bill.data && (
        <>
          {chart.times.length > 0 && (
            <div class="card">
              <Chart label={`Amount per ${filter.period}: ${units(bill.data.total.amount)} in all`} times={chart.times} lines={chart.lines} bars />
            </div>
          )}
          <div class="table-wrap">
            <table>
              <caption>
                {num(bill.data.total.entries)} charges, {units(bill.data.total.amount)} in all
              </caption>
              <thead>
                <tr>
                  <th scope="col">{filter.period === 'day' ? 'Day (UTC)' : 'Month (UTC)'}</th>
                  <th scope="col">Token</th>
                  <th scope="col" class="num">Charges</th>
                  <th scope="col" class="num">Amount</th>
                </tr>
              </thead>
              <tbody>
                {bill.data.data.map((l) => (
                  <tr key={`${l.period_start}/${l.token_id}`}>
                    <td>{l.period_start}</td>
                    <td>
                      {l.token_name ?? '—'} <code>{l.token_id}</code>
                    </td>
                    <td class="num">{num(l.entries)}</td>
                    <td class="num">{l.amount_units}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
