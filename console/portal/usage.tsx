// The account at a glance: its balance and budgets, each token's remaining quota, and spend and requests per day by
// model as charts (with the figures as a table).
import { useState } from 'preact/hooks';
import { units } from '../src/format.ts';
import { acct, call, type PortalSession } from './api.ts';
import { StackedBars, type DaySeries } from './chart.tsx';
import { useLoad } from './load.ts';

interface Budget {
  period: string;
  limit: number;
  spent: number;
  held: number;
  remaining: number;
  resets_at: number;
}
export interface PortalToken {
  id: string;
  name: string;
  prefix: string;
  models: string[] | null;
  quota: number | null;
  spent: number;
  remaining: number | null;
  expires_at: number | null;
  revoked_at: number | null;
  budgets?: Budget[];
}
interface Overview {
  account: {
    name: string;
    quota: number | null;
    spent: number;
    held: number;
    remaining: number | null;
    expires_at: number | null;
  };
  budgets: Budget[];
  tokens: PortalToken[];
}
interface Usage {
  data: Array<{ day: string; models: Record<string, { requests: number; amount: number | string }> }>;
}

function Budgets({ budgets }: { budgets: Budget[] }) {
  if (budgets.length === 0) return <span class="muted">no budgets</span>;
  return (
    <ul class="plain">
      {budgets.map((b) => (
        <li key={b.period}>
          {b.period}: {units(b.remaining)} left of {units(b.limit)}
        </li>
      ))}
    </ul>
  );
}

export function UsagePage({ session }: { session: PortalSession }) {
  const [days, setDays] = useState(30);
  const over = useLoad(() => call<Overview>(acct(session)), [session.account.id]);
  const use = useLoad(() => call<Usage>(acct(session, `/usage?days=${days}`)), [session.account.id, days]);
  const models = [...new Set((use.data?.data ?? []).flatMap((d) => Object.keys(d.models)))].sort();
  const series = (f: (m: { requests: number; amount: number | string }) => number): DaySeries[] =>
    (use.data?.data ?? []).map((d) => ({
      day: d.day,
      values: Object.fromEntries(Object.entries(d.models).map(([m, v]) => [m, f(v)])),
    }));
  const a = over.data?.account;
  return (
    <section>
      <h1 tabIndex={-1}>Usage</h1>
      {over.error && (
        <p role="alert" class="error">
          {over.error}
        </p>
      )}
      {a && (
        <div class="cards">
          <div class="card">
            <h2>Balance</h2>
            <p id="account-remaining">{a.remaining === null ? 'Unlimited' : `${units(a.remaining)} left`}</p>
            <p class="muted">
              {units(a.spent)} spent{a.quota !== null ? ` of ${units(a.quota)}` : ''}
            </p>
          </div>
          <div class="card">
            <h2>Budgets</h2>
            <Budgets budgets={over.data!.budgets} />
          </div>
        </div>
      )}
      <label for="usage-days">Days</label>{' '}
      <select id="usage-days" value={String(days)} onChange={(e) => setDays(Number(e.currentTarget.value))}>
        {[7, 30, 90].map((d) => (
          <option key={d} value={String(d)}>
            {d}
          </option>
        ))}
      </select>
      {use.error && (
        <p role="alert" class="error">
          {use.error}
        </p>
      )}
      {use.data && (
        <>
          <h2>Spend per day</h2>
          <StackedBars label="Spend per day by model" days={series((v) => Number(v.amount) / 1e6)} models={models} />
          <h2>Requests per day</h2>
          <StackedBars label="Requests per day by model" days={series((v) => v.requests)} models={models} />
          {models.length === 0 && <p class="muted">No use in this period.</p>}
        </>
      )}
      {over.data && (
        <>
          <h2>Tokens</h2>
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th>Token</th>
                  <th>Remaining</th>
                  <th>Budgets</th>
                </tr>
              </thead>
              <tbody>
                {over.data.tokens.map((t) => (
                  <tr key={t.id}>
                    <td>{t.name}</td>
                    <td>{t.remaining === null ? 'Unlimited' : units(t.remaining)}</td>
                    <td>
                      <Budgets budgets={t.budgets ?? []} />
                    </td>
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
