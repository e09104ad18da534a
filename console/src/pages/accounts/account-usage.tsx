// An account's balance, each budget in its current period, and its charges per model over a period (charged and at
// list price), from GET /admin/accounts/{id}/usage.
import { useState } from 'preact/hooks';
import { call, qs } from '../../api.ts';
import { BudgetTable } from '../../budgets.tsx';
import { count, num, units } from '../../format.ts';
import { Share } from '../../share.tsx';
import type { AccountUsage as Usage } from '../../types.ts';
import { useLoad } from '../../use-load.ts';

const RANGES = [
  ['month', 'This month (UTC)', 0],
  ['7d', 'Last 7 days', 7],
  ['30d', 'Last 30 days', 30],
  ['365d', 'Last 365 days', 365],
] as const;
type Range = (typeof RANGES)[number][0];

export function AccountUsage({ accountId, version }: { accountId: string; version: number }) {
  const [range, setRange] = useState<Range>('month');
  const days = RANGES.find((r) => r[0] === range)![2];
  const usage = useLoad(
    () =>
      call<Usage>(
        `/admin/accounts/${encodeURIComponent(accountId)}/usage${qs({ since: days ? Date.now() - days * 86_400_000 : undefined })}`,
      ),
    [accountId, range, version],
  );
  const u = usage.data;
  const a = u?.account;
  return (
    <div>
      <h3>Balance</h3>
      {usage.error && (
        <p role="alert" class="error">
          {usage.error}
        </p>
      )}
      {a && (
        <dl class="facts" id="account-balance">
          <dt>Quota</dt>
          <dd>{a.quota === null ? 'unlimited' : units(a.quota)}</dd>
          <dt>Spent</dt>
          <dd>
            {units(a.spent)}
            {a.quota !== null && <Share part={a.spent} whole={a.quota} of="Spent of the quota" />}
          </dd>
          <dt>Held by calls in flight</dt>
          <dd>{units(a.held)}</dd>
          <dt>Remaining</dt>
          <dd>{a.remaining === null ? 'unlimited' : units(a.remaining)}</dd>
          <dt>Time zone</dt>
          <dd>{a.time_zone ?? 'UTC'}</dd>
          <dt>Price group</dt>
          <dd>{a.price_group ?? 'none (list prices)'}</dd>
        </dl>
      )}
      {u && u.budgets.length > 0 && (
        <BudgetTable id="account-budgets" budgets={u.budgets} caption="Budgets in their current period" />
      )}
      <h3>Spend per model</h3>
      <label for="account-range">Period</label>
      <select id="account-range" value={range} onChange={(e) => setRange(e.currentTarget.value as Range)}>
        {RANGES.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
      {u && (
        <div class="table-wrap">
          <table id="account-usage">
            <caption>
              {RANGES.find((r) => r[0] === range)![1]}: {count(u.usage.total.entries, 'entry', 'entries')},{' '}
              {u.usage.total.amount_units} units
              {u.usage.total.list_amount !== u.usage.total.amount
                ? ` (${units(u.usage.total.list_amount)} at list price)`
                : ''}
              {Number(u.usage.credited) > 0 ? `; ${units(u.usage.credited)} added by top-ups` : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col" class="num">
                  Entries
                </th>
                <th scope="col" class="num">
                  Amount
                </th>
                <th scope="col" class="num">
                  At list price
                </th>
                <th scope="col">Share</th>
              </tr>
            </thead>
            <tbody>
              {u.usage.data.length === 0 && (
                <tr>
                  <td colSpan={5} class="muted">
                    No charges in this period
                  </td>
                </tr>
              )}
              {u.usage.data.map((m) => (
                <tr key={m.model}>
                  <th scope="row">{m.model}</th>
                  <td class="num">{num(m.entries)}</td>
                  <td class="num">{m.amount_units}</td>
                  <td class="num">{units(m.list_amount)}</td>
                  <td>
                    <Share
                      part={Number(m.amount)}
                      whole={Number(u.usage.total.amount)}
                      of={`${m.model}, share of the spend`}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
