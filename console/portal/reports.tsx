// The account's bills (JSON shown as a table, CSV to download) and its tokens' request log (no upstream details).
import { useState } from 'preact/hooks';
import { time, units } from '../src/format.ts';
import { acct, call, type PortalSession } from './api.ts';
import { useLoad } from './load.ts';

interface BillLine {
  token_id: string;
  token_name: string | null;
  period_start: string;
  entries: number;
  amount: number | string;
}

export function BillsPage({ session }: { session: PortalSession }) {
  const [period, setPeriod] = useState<'day' | 'month'>('month');
  const bill = useLoad(
    () => call<{ data: BillLine[]; total: { amount: number | string } }>(acct(session, `/bills?period=${period}`)),
    [session.account.id, period],
  );
  return (
    <section>
      <h1 tabIndex={-1}>Bills</h1>
      <label for="bill-period">Period</label>{' '}
      <select id="bill-period" value={period} onChange={(e) => setPeriod(e.currentTarget.value as 'day' | 'month')}>
        <option value="month">month</option>
        <option value="day">day</option>
      </select>{' '}
      <a href={`/portal/api${acct(session, `/bills?period=${period}&format=csv`)}`} download>
        Download CSV
      </a>
      {bill.error && (
        <p role="alert" class="error">
          {bill.error}
        </p>
      )}
      {bill.data && (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Period</th>
                <th>Token</th>
                <th>Requests</th>
                <th>Amount</th>
              </tr>
            </thead>
            <tbody>
              {bill.data.data.map((l) => (
                <tr key={`${l.period_start}:${l.token_id}`}>
                  <td>{l.period_start}</td>
                  <td>{l.token_name ?? l.token_id}</td>
                  <td>{l.entries}</td>
                  <td>{units(l.amount)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p>Total: {units(bill.data.total.amount)}</p>
        </div>
      )}
    </section>
  );
}

interface LogRow {
  request_id: string;
  model: string | null;
  endpoint: string;
  status: number;
  latency_ms: number;
  amount: number;
  error_code: string | null;
  created_at: number;
}

export function LogsPage({ session }: { session: PortalSession }) {
  const log = useLoad(() => call<{ data: LogRow[] }>(acct(session, '/logs?limit=100')), [session.account.id]);
  return (
    <section>
      <h1 tabIndex={-1}>Request log</h1>
      {log.error && (
        <p role="alert" class="error">
          {log.error}
        </p>
      )}
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th>Time</th>
              <th>Model</th>
              <th>Status</th>
              <th>Amount</th>
              <th>Request id</th>
            </tr>
          </thead>
          <tbody>
            {(log.data?.data ?? []).map((r) => (
              <tr key={r.request_id}>
                <td>{time(r.created_at)}</td>
                <td>{r.model ?? r.endpoint}</td>
                <td>
                  {r.status}
                  {r.error_code ? ` ${r.error_code}` : ''}
                </td>
                <td>{units(r.amount)}</td>
                <td>
                  <code>{r.request_id}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
