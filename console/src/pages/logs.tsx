// The request log: search by request id (the X-Gateway-Request-Id a user reports), token, model, status and time;
// paged by the server (newest first, 50 a page, by its cursor).
import { useState } from 'preact/hooks';
import { call, qs } from '../api.ts';
import { fromLocalInput, num, time, units } from '../format.ts';
import { go } from '../router.ts';
import { useLoad } from '../use-load.ts';
import { Pager, usePaging } from '../pager.tsx';

export interface LogRow {
  request_id: string;
  token_id: string | null;
  model: string | null;
  endpoint: string;
  method: string;
  status: number;
  latency_ms: number;
  usage: unknown;
  amount: number;
  upstream_request_id: string | null;
  error_code: string | null;
  channel_id?: string | null;
  attempts?: Array<{ channel_id: string; outcome: string; error_code: string | null; latency_ms: number }> | null;
  ttfb_ms?: number | null;
  created_at: number;
}

const PAGE = 50;
const FIELDS = ['request_id', 'token_id', 'model', 'status', 'since', 'until'] as const;

export function Logs({ query }: { query: URLSearchParams }) {
  const current = Object.fromEntries(FIELDS.map((f) => [f, query.get(f) ?? ''])) as Record<
    (typeof FIELDS)[number],
    string
  >;
  const [form, setForm] = useState(current);
  const paging = usePaging();
  const cursor = paging.cursor;
  const key = query.toString();
  const rows = useLoad(
    () =>
      call<{ data: LogRow[]; has_more: boolean; next_cursor?: string }>(
        `/admin/logs${qs({ request_id: current.request_id, token_id: current.token_id, model: current.model, status: current.status, since: fromLocalInput(current.since), until: fromLocalInput(current.until), cursor, limit: PAGE })}`,
      ),
    [key, cursor],
  );
  const submit = (e: Event) => {
    e.preventDefault();
    paging.reset();
    const u = new URLSearchParams();
    for (const f of FIELDS) if (form[f].trim()) u.set(f, form[f].trim());
    go(`#/logs${u.toString() ? `?${u}` : ''}`);
  };
  const field = (f: (typeof FIELDS)[number], label: string, type = 'text') => (
    <div class="field">
      <label for={`log-${f}`}>{label}</label>
      <input
        id={`log-${f}`}
        type={type}
        value={form[f]}
        onInput={(e) => setForm({ ...form, [f]: e.currentTarget.value })}
      />
    </div>
  );
  const data = rows.data?.data ?? [];
  return (
    <section>
      <h1 tabIndex={-1}>Request log</h1>
      {/* biome-ignore lint/a11y/useSemanticElements: the <search> element is not in Preact's JSX types; role="search" is its equivalent */}
      <form class="card filters" onSubmit={submit} role="search" aria-label="Search the request log">
        {field('request_id', 'Request id')}
        {field('token_id', 'Token id')}
        {field('model', 'Model')}
        {field('status', 'Status (e.g. 429 or 5xx)')}
        {field('since', 'From', 'datetime-local')}
        {field('until', 'Until', 'datetime-local')}
        <div class="field end">
          <button type="submit">Search</button>
        </div>
      </form>
      {rows.error && (
        <p role="alert" class="error">
          {rows.error}
        </p>
      )}
      <div class="table-wrap">
        <table>
          <caption>
            {rows.loading
              ? 'Loading…'
              : `${data.length} request${data.length === 1 ? '' : 's'}${paging.page > 1 ? ` (page ${paging.page})` : ''}`}
          </caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Request id</th>
              <th scope="col">Token</th>
              <th scope="col">Model</th>
              <th scope="col">Endpoint</th>
              <th scope="col" class="num">
                Status
              </th>
              <th scope="col" class="num">
                Latency ms
              </th>
              <th scope="col" class="num">
                Amount
              </th>
            </tr>
          </thead>
          <tbody>
            {data.map((r) => (
              <tr key={r.request_id}>
                <td>{time(r.created_at)}</td>
                <td>
                  <a href={`#/logs/${encodeURIComponent(r.request_id)}`}>
                    <code>{r.request_id}</code>
                  </a>
                </td>
                <td>
                  <code>{r.token_id ?? '—'}</code>
                </td>
                <td>{r.model ?? '—'}</td>
                <td>
                  {r.method} <code>{r.endpoint}</code>
                </td>
                <td class={`num ${r.status >= 400 ? 'bad' : ''}`}>{r.status}</td>
                <td class="num">{num(r.latency_ms)}</td>
                <td class="num">{units(r.amount)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager paging={paging} hasMore={rows.data?.has_more ?? false} nextCursor={rows.data?.next_cursor} />
    </section>
  );
}
