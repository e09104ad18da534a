// One request: its request-log row and the ledger lines charged for it, with quantities and unit prices —
// "why was I charged this".
import { call, qs } from '../api.ts';
import { num, time, units } from '../format.ts';
import { LedgerTable } from '../ledger-table.tsx';
import { Pairs } from '../pairs.tsx';
import { useLoad } from '../use-load.ts';
import type { LogRow } from './logs.tsx';

interface LedgerLine {
  id: number;
  kind: string;
  model: string;
  token_id: string;
  quantities: unknown;
  unit_prices: unknown;
  amount: number;
  task_id: string | null;
  upstream_request_id: string | null;
  created_at: number;
}

export function LogDetail({ requestId }: { requestId: string }) {
  const detail = useLoad(async () => {
    const [log, ledger] = await Promise.all([
      call<{ data: LogRow[] }>(`/admin/logs${qs({ request_id: requestId, limit: 1 })}`),
      call<{ data: LedgerLine[] }>(`/admin/ledger${qs({ request_id: requestId, limit: 100 })}`),
    ]);
    return { row: log.data[0] ?? null, ledger: ledger.data };
  }, [requestId]);
  const row = detail.data?.row;
  const ledger = detail.data?.ledger ?? [];
  const total = ledger.reduce((s, l) => s + l.amount, 0);
  return (
    <section>
      <p>
        <a href="#/logs">← Request log</a>
      </p>
      <h1 tabIndex={-1}>
        Request <code class="wrap">{requestId}</code>
      </h1>
      {detail.error && (
        <p role="alert" class="error">
          {detail.error}
        </p>
      )}
      {detail.loading && !detail.data && <p>Loading…</p>}
      {detail.data && !row && (
        <p class="card">No request with this id is in the request log (only authenticated calls are logged).</p>
      )}
      {row && (
        <div class="card">
          <dl class="facts">
            <dt>Time</dt>
            <dd>{time(row.created_at)}</dd>
            <dt>Endpoint</dt>
            <dd>
              {row.method} {row.endpoint}
            </dd>
            <dt>Status</dt>
            <dd class={row.status >= 400 ? 'bad' : ''}>
              {row.status}
              {row.error_code ? ` (${row.error_code})` : ''}
            </dd>
            <dt>Token</dt>
            <dd>
              <code>{row.token_id ?? '—'}</code>
            </dd>
            <dt>Model</dt>
            <dd>{row.model ?? '—'}</dd>
            <dt>Latency</dt>
            <dd>
              {num(row.latency_ms)} ms
              {row.ttfb_ms !== null && row.ttfb_ms !== undefined ? ` (first byte after ${num(row.ttfb_ms)} ms)` : ''}
            </dd>
            <dt>Channel</dt>
            <dd>
              <code>{row.channel_id ?? '—'}</code>
            </dd>
            <dt>Upstream attempts</dt>
            <dd>
              {row.attempts && row.attempts.length > 0 ? (
                <ol class="attempts">
                  {row.attempts.map((a, i) => (
                    <li key={i}>
                      <code>{a.channel_id}</code>:{' '}
                      {a.outcome === 'ok' ? 'answered' : `failed (${a.error_code ?? 'error'})`}, {num(a.latency_ms)} ms
                    </li>
                  ))}
                </ol>
              ) : (
                <span class="muted">none recorded</span>
              )}
            </dd>
            <dt>Upstream request id</dt>
            <dd>
              <code>{row.upstream_request_id ?? '—'}</code>
            </dd>
            <dt>Usage</dt>
            <dd>
              <Pairs value={row.usage} label="Usage" />
            </dd>
            <dt>Amount (request path)</dt>
            <dd>{units(row.amount)}</dd>
          </dl>
        </div>
      )}
      {detail.data && (
        <>
          <h2>Ledger lines</h2>
          <p>
            What was charged for this request, with the quantities metered and the unit prices in force (micro-units per
            unit of each quantity). The ledger is the billing record.
          </p>
          <LedgerTable
            id="ledger-lines"
            lines={ledger}
            withModel
            caption={`${ledger.length} line${ledger.length === 1 ? '' : 's'}, total ${units(total)}`}
          />
        </>
      )}
    </section>
  );
}
