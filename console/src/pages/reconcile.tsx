// Reconciliation (GET /admin/reconcile): for a period, the ledger against the upstream usage stored with each request
// and task. The page says first whether the period is clean, else what is wrong and how many; then the totals per day,
// model and channel, and each kind of finding as its own table.
import './reconcile/reconcile.css';
import { useState } from 'preact/hooks';
import { call, qs } from '../api.ts';
import { fromLocalInput, time, toLocalInput, units } from '../format.ts';
import { useLoad } from '../use-load.ts';
import type { ReconcileReport } from '../../../src/core/reconcile.ts';
import { Findings } from './reconcile/findings.tsx';
import { problems } from './reconcile/verdict.ts';

const HOUR = 3_600_000;
const PRESETS = [
  ['Last 24 hours', 24 * HOUR],
  ['Last 7 days', 7 * 24 * HOUR],
  ['Last 30 days', 30 * 24 * HOUR],
] as const;

type Period = { since: number; until: number };

function Verdict({ report }: { report: ReconcileReport }) {
  const wrong = problems(report);
  return wrong.length === 0 ? (
    <div class="card verdict clean" id="reconcile-verdict" role="status">
      <strong>Clean.</strong> From {time(report.since)} to {time(report.until)} the ledger agrees with the stored
      upstream usage: no difference, no mismatch, no open hold, no task charged without success or success without
      charge, no lost submit, no upstream disagreement.
    </div>
  ) : (
    <div class="card verdict wrong" id="reconcile-verdict" role="status">
      <strong>Not clean.</strong> From {time(report.since)} to {time(report.until)}:
      <ul>
        {wrong.map((w) => (
          <li key={w}>{w}</li>
        ))}
      </ul>
    </div>
  );
}

function PeriodPicker({ period, onPick }: { period: Period; onPick: (p: Period) => void }) {
  const [from, setFrom] = useState(toLocalInput(period.since));
  const [to, setTo] = useState(toLocalInput(period.until));
  const [error, setError] = useState<string | null>(null);
  const submit = (e: Event) => {
    e.preventDefault();
    const f = fromLocalInput(from);
    const t = fromLocalInput(to);
    if (f === undefined || t === undefined) return setError('Give both ends of the period');
    if (f >= t) return setError('The period must start before it ends');
    setError(null);
    onPick({ since: f, until: t });
  };
  const preset = (span: number) => {
    const now = Date.now();
    setFrom(toLocalInput(now - span));
    setTo(toLocalInput(now));
    setError(null);
    onPick({ since: now - span, until: now });
  };
  return (
    <form class="card reconcile-period" onSubmit={submit} aria-label="Period" noValidate>
      <div class="actions">
        {PRESETS.map(([label, span]) => (
          <button key={label} type="button" class="quiet" onClick={() => preset(span)}>
            {label}
          </button>
        ))}
      </div>
      <div class="filters">
        <div class="field">
          <label for="reconcile-from">From</label>
          <input
            id="reconcile-from"
            type="datetime-local"
            value={from}
            onInput={(e) => setFrom(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="reconcile-to">To</label>
          <input id="reconcile-to" type="datetime-local" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        </div>
        <div class="field end">
          <button type="submit">Reconcile</button>
        </div>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}

function Groups({ report }: { report: ReconcileReport }) {
  return (
    <>
      <p>
        Difference in total: <strong id="reconcile-difference">{units(report.difference)}</strong> units. Per UTC day,
        model and channel (calls have no channel: -):
      </p>
      <div class="table-wrap">
        <table id="reconcile-groups">
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Model</th>
              <th scope="col">Channel</th>
              <th scope="col" class="num">
                Entries
              </th>
              <th scope="col" class="num">
                Ledger
              </th>
              <th scope="col" class="num">
                Ledger at list price
              </th>
              <th scope="col" class="num">
                Upstream usage, priced
              </th>
              <th scope="col" class="num">
                Difference
              </th>
            </tr>
          </thead>
          <tbody>
            {report.groups.map((g) => (
              <tr key={`${g.day}|${g.model}|${g.channel}`}>
                <td>{g.day}</td>
                <td>{g.model}</td>
                <td>{g.channel}</td>
                <td class="num">{g.entries}</td>
                <td class="num">{units(g.ledger_amount)}</td>
                <td class="num">{units(g.ledger_list_amount)}</td>
                <td class="num">{units(g.reported_amount)}</td>
                <td class={String(g.difference) === '0' ? 'num' : 'num bad'}>{units(g.difference)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

export function Reconcile() {
  const [period, setPeriod] = useState<Period>(() => {
    const now = Date.now();
    return { since: now - 24 * HOUR, until: now };
  });
  const report = useLoad(
    () => call<ReconcileReport>(`/admin/reconcile${qs({ since: period.since, until: period.until })}`),
    [period.since, period.until],
  );
  const r = report.data;
  return (
    <section class="reconcile">
      <h1 tabIndex={-1}>Reconciliation</h1>
      <p class="muted">
        The ledger against what the upstreams reported (the usage stored with each call and task), re-priced at the
        prices the ledger recorded. Amounts in units. The same report as <code>tollway reconcile</code>.
      </p>
      <PeriodPicker period={period} onPick={setPeriod} />
      {report.error && (
        <p role="alert" class="error">
          {report.error}
        </p>
      )}
      {report.loading && <p class="muted">Reconciling…</p>}
      {r && !report.loading && (
        <>
          <Verdict report={r} />
          <h2>Totals</h2>
          {r.groups.length > 0 ? (
            <Groups report={r} />
          ) : (
            <p class="muted">No charge and no reported usage in the period.</p>
          )}
          <Findings report={r} />
        </>
      )}
    </section>
  );
}
