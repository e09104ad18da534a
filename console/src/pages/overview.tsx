// The overview: requests, errors and spend over the last hour, day or 30 days, and the busiest models and tokens (or
// accounts: each token's figures counted for the account it belongs to now).
import { useMemo, useState } from 'preact/hooks';
import { call } from '../api.ts';
import { Chart } from '../chart.tsx';
import { num, units } from '../format.ts';
import { useLoad } from '../use-load.ts';
import { Name } from '../name.tsx';
import { Health } from './overview/health.tsx';
import { TopTable } from './overview/top-table.tsx';

interface Stats {
  window: string;
  bucket_ms: number;
  series: { t: number[]; requests: number[]; errors: number[]; spend: Array<number | string> };
  totals: { requests: number; errors: number; spend: number | string };
  top_models: Array<{ model: string | null; requests: number; errors: number; spend: number | string }>;
  top_tokens: Array<{
    token_id: string | null;
    name: string | null;
    requests: number;
    errors: number;
    spend: number | string;
  }>;
  /** With group_by=account. */
  top_accounts?: Array<{
    account_id: string | null;
    name: string | null;
    requests: number;
    errors: number;
    spend: number | string;
  }>;
}

const GROUPS = [
  ['token', 'By token'],
  ['account', 'By account'],
] as const;
type Group = (typeof GROUPS)[number][0];

const WINDOWS = [
  ['1h', 'Last hour'],
  ['24h', 'Last day'],
  ['30d', 'Last 30 days'],
] as const;

export function Overview() {
  const [win, setWin] = useState<string>('24h');
  const [group, setGroup] = useState<Group>('token');
  const stats = useLoad(
    () => call<Stats>(`/admin/stats?window=${win}${group === 'account' ? '&group_by=account' : ''}`),
    [win, group],
  );
  const s = stats.data;
  const traffic = useMemo(
    () =>
      s
        ? [
            { label: 'Requests', values: s.series.requests, color: '#2f6fde' },
            { label: 'Errors', values: s.series.errors, color: '#d43d3d' },
          ]
        : [],
    [s],
  );
  const spend = useMemo(
    () => (s ? [{ label: 'Spend', values: s.series.spend.map(Number), color: '#1d8a5a', format: units }] : []),
    [s],
  );
  // Named after the window the figures are for: until a new window's answer arrives, the previous one stays up.
  const shown = s?.window ?? win;
  const label = WINDOWS.find(([w]) => w === shown)?.[1] ?? shown;
  return (
    <section>
      <h1 tabIndex={-1}>Overview</h1>
      <fieldset class="toolbar bare">
        <legend>Window</legend>
        {WINDOWS.map(([w, text]) => (
          <button
            key={w}
            type="button"
            class={w === win ? '' : 'quiet'}
            aria-pressed={w === win}
            onClick={() => setWin(w)}
          >
            {text}
          </button>
        ))}
        <button type="button" class="quiet" onClick={stats.reload}>
          Refresh
        </button>
      </fieldset>
      {stats.error && (
        <p role="alert" class="error">
          {stats.error}
        </p>
      )}
      {s && (
        <>
          <div class="cards">
            <div class="card stat">
              <span>Requests</span>
              <strong>{num(s.totals.requests)}</strong>
            </div>
            <div class="card stat">
              <span>Errors</span>
              <strong>
                {num(s.totals.errors)}
                {s.totals.requests ? ` (${((100 * s.totals.errors) / s.totals.requests).toFixed(1)} %)` : ''}
              </strong>
            </div>
            <div class="card stat">
              <span>Spend</span>
              <strong>{units(s.totals.spend)}</strong>
            </div>
          </div>
          <div class="card">
            <h2>Requests and errors — {label.toLowerCase()}</h2>
            <Chart
              label={`Requests and errors per ${s.bucket_ms / 60000} minutes, ${label.toLowerCase()}: ${s.totals.requests} requests, ${s.totals.errors} errors`}
              times={s.series.t}
              lines={traffic}
            />
          </div>
          <div class="card">
            <h2>Spend — {label.toLowerCase()}</h2>
            <Chart
              label={`Spend per ${s.bucket_ms / 60000} minutes, ${label.toLowerCase()}: ${units(s.totals.spend)} in all`}
              times={s.series.t}
              lines={spend}
              bars
            />
          </div>
          <fieldset class="toolbar bare">
            <legend>Busiest</legend>
            {GROUPS.map(([g, text]) => (
              <button
                key={g}
                type="button"
                class={g === group ? '' : 'quiet'}
                aria-pressed={g === group}
                onClick={() => setGroup(g)}
              >
                {text}
              </button>
            ))}
          </fieldset>
          <div class="two">
            <TopTable
              caption="Top models"
              head="Model"
              rows={s.top_models.map((m) => ({
                key: m.model ?? '-',
                name: m.model ?? '—',
                requests: m.requests,
                errors: m.errors,
                spend: m.spend,
              }))}
            />
            {s.top_accounts ? (
              <TopTable
                caption="Top accounts"
                head="Account"
                rows={s.top_accounts.map((a) => ({
                  key: a.account_id ?? '-',
                  name: a.account_id ? (
                    <a href={`#/accounts/${encodeURIComponent(a.account_id)}`}>
                      <Name value={a.name ?? a.account_id} />
                    </a>
                  ) : (
                    'No account'
                  ),
                  requests: a.requests,
                  errors: a.errors,
                  spend: a.spend,
                }))}
              />
            ) : (
              <TopTable
                caption="Top tokens"
                head="Token"
                rows={s.top_tokens.map((t) => ({
                  key: t.token_id ?? '-',
                  name: t.token_id ? (
                    <a href={`#/logs?token_id=${encodeURIComponent(t.token_id)}`}>
                      <Name value={t.name ?? t.token_id} />
                    </a>
                  ) : (
                    '—'
                  ),
                  requests: t.requests,
                  errors: t.errors,
                  spend: t.spend,
                }))}
              />
            )}
          </div>
        </>
      )}
      <Health />
    </section>
  );
}
