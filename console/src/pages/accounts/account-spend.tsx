// An account's spend per day (the last 30 days) or month (the last 12), from its bill (GET /admin/bills?by=account
// &account_id=…: the ledger lines that counted against it), as a bar chart with the figures as a table beside it.
import { useMemo, useState } from 'preact/hooks';
import { call, qs } from '../../api.ts';
import { Chart } from '../../chart.tsx';
import { units } from '../../format.ts';
import { lastPeriods } from '../../periods.ts';
import type { BillByAccountView } from '../../types.ts';
import { useLoad } from '../../use-load.ts';

export function AccountSpend({ accountId, version }: { accountId: string; version: number }) {
  const [period, setPeriod] = useState<'day' | 'month'>('day');
  const periods = useMemo(() => lastPeriods(period, period === 'day' ? 30 : 12, Date.now()), [period]);
  const bill = useLoad(
    () =>
      call<BillByAccountView>(
        `/admin/bills${qs({ by: 'account', account_id: accountId, period, since: periods[0]![1] })}`,
      ),
    [accountId, periods, version],
  );
  const by = useMemo(
    () => new Map((bill.data?.data ?? []).map((l) => [l.period_start, Number(l.amount)])),
    [bill.data],
  );
  const lines = useMemo(
    () => [{ label: 'Spend', values: periods.map(([k]) => by.get(k) ?? 0), color: '#1d8a5a', format: units }],
    [periods, by],
  );
  const times = useMemo(() => periods.map(([, t]) => t), [periods]);
  const what = period === 'day' ? 'day, the last 30 days' : 'month, the last 12 months';
  const total = bill.data?.total.amount ?? 0;
  return (
    <div>
      <h3>Spend by period</h3>
      <label for="account-spend-period">Per</label>
      <select
        id="account-spend-period"
        value={period}
        onChange={(e) => setPeriod(e.currentTarget.value as 'day' | 'month')}
      >
        <option value="day">Day (the account's time zone), the last 30 days</option>
        <option value="month">Month (the account's time zone), the last 12 months</option>
      </select>
      {bill.error && (
        <p role="alert" class="error">
          {bill.error}
        </p>
      )}
      {bill.data && (
        <>
          <Chart label={`Spend per ${what}: ${units(total)} in all`} times={times} lines={lines} bars />
          <div class="table-wrap">
            <table id="account-spend">
              <caption>
                Spend per {what}: {units(total)} in all
                {Number(bill.data.total.credit) > 0 ? `; ${units(bill.data.total.credit)} added by top-ups` : ''}
              </caption>
              <thead>
                <tr>
                  <th scope="col">{period === 'day' ? 'Day (UTC)' : 'Month (UTC)'}</th>
                  <th scope="col" class="num">
                    Entries
                  </th>
                  <th scope="col" class="num">
                    Amount
                  </th>
                  <th scope="col" class="num">
                    Top-ups
                  </th>
                </tr>
              </thead>
              <tbody>
                {bill.data.data.length === 0 && (
                  <tr>
                    <td colSpan={4} class="muted">
                      Nothing in these {period === 'day' ? 'days' : 'months'}
                    </td>
                  </tr>
                )}
                {bill.data.data.map((l) => (
                  <tr key={l.period_start}>
                    <th scope="row">{l.period_start}</th>
                    <td class="num">{l.entries}</td>
                    <td class="num">{l.amount_units}</td>
                    <td class="num">{units(l.credits.amount)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
