// A token's balance, its own budgets in their current period and its spend per model over a period, from
// GET /admin/tokens/{id}/usage (the ledger; the budgets' spend rows).
import { useState } from 'preact/hooks';
import { call, qs } from '../../api.ts';
import { BudgetTable } from '../../budgets.tsx';
import { count, num, units } from '../../format.ts';
import type { TokenUsageView } from '../../types.ts';
import { useLoad } from '../../use-load.ts';
import { Share } from '../../share.tsx';

const PERIODS = [
  ['month', 'This month (UTC)', 0],
  ['7d', 'Last 7 days', 7],
  ['30d', 'Last 30 days', 30],
  ['365d', 'Last 365 days', 365],
] as const;
type Period = (typeof PERIODS)[number][0];

export function TokenUsage({ tokenId, version }: { tokenId: string; version: number }) {
  const [period, setPeriod] = useState<Period>('month');
  const days = PERIODS.find((p) => p[0] === period)![2];
  const usage = useLoad(
    () =>
      call<TokenUsageView>(
        `/admin/tokens/${encodeURIComponent(tokenId)}/usage${qs({ since: days ? Date.now() - days * 86_400_000 : undefined })}`,
      ),
    [tokenId, period, version],
  );
  const u = usage.data;
  const label = PERIODS.find((p) => p[0] === period)![1];
  return (
    <div class="token-usage">
      <h3>Balance</h3>
      {usage.error && (
        <p role="alert" class="error">
          {usage.error}
        </p>
      )}
      {u && (
        <dl class="facts" id="token-balance">
          <dt>Quota</dt>
          <dd>{u.balance.quota === null ? 'unlimited' : units(u.balance.quota)}</dd>
          <dt>Spent</dt>
          <dd>
            {units(u.balance.spent)}
            {u.balance.quota !== null && (
              <Share part={u.balance.spent} whole={u.balance.quota} of="Spent of the quota" />
            )}
          </dd>
          <dt>Held</dt>
          <dd>{units(u.balance.held)}</dd>
          <dt>Remaining</dt>
          <dd>{u.balance.remaining === null ? 'unlimited' : units(u.balance.remaining)}</dd>
        </dl>
      )}
      {u && u.budgets.length > 0 && (
        <BudgetTable id="token-budgets" budgets={u.budgets} caption="Budgets of this token in their current period" />
      )}
      <h3>Spend per model</h3>
      <label for="usage-period">Period</label>
      <select id="usage-period" value={period} onChange={(e) => setPeriod(e.currentTarget.value as Period)}>
        {PERIODS.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
      {u && (
        <div class="table-wrap">
          <table id="token-usage">
            <caption>
              {label}: {count(u.usage.total.entries, 'entry', 'entries')}, {u.usage.total.amount_units} units
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
                <th scope="col">Share</th>
              </tr>
            </thead>
            <tbody>
              {u.usage.data.length === 0 && (
                <tr>
                  <td colSpan={4} class="muted">
                    No charges in this period
                  </td>
                </tr>
              )}
              {u.usage.data.map((m) => (
                <tr key={m.model}>
                  <th scope="row">{m.model}</th>
                  <td class="num">{num(m.entries)}</td>
                  <td class="num">{m.amount_units}</td>
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
