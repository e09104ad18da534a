// The overview's health panel: each channel's breaker, recent error rate and latency, and the open tasks by state.
import { call } from '../../api.ts';
import { num } from '../../format.ts';
import { useLoad } from '../../use-load.ts';
import { Name } from '../../name.tsx';

interface HealthAnswer {
  recent_ms: number;
  channels: Array<{
    id: string;
    name: string;
    enabled: boolean;
    breaker: { state: string };
    recent: { requests: number; errors: number; error_rate: number; mean_latency_ms: number | null };
  }>;
  open_tasks: Record<string, number>;
}

/** Upstream channel health (breaker, recent error rate and latency) and the open video tasks. */
export function Health() {
  const health = useLoad(() => call<HealthAnswer>('/admin/health'), []);
  const h = health.data;
  if (health.error)
    return (
      <p role="alert" class="error">
        {health.error}
      </p>
    );
  if (!h) return null;
  const minutes = Math.round(h.recent_ms / 60_000);
  return (
    <div class="two">
      <div class="card table-wrap">
        <table>
          <caption>Channels, last {minutes} minutes</caption>
          <thead>
            <tr>
              <th scope="col">Channel</th>
              <th scope="col">Breaker</th>
              <th scope="col" class="num">
                Requests
              </th>
              <th scope="col" class="num">
                Error rate
              </th>
              <th scope="col" class="num">
                Mean latency
              </th>
            </tr>
          </thead>
          <tbody>
            {h.channels.map((c) => (
              <tr key={c.id}>
                <th scope="row">
                  <a href="#/channels">
                    <Name value={c.name} />
                  </a>
                  {c.enabled ? '' : ' (disabled)'}
                </th>
                <td>
                  <span class={`pill ${c.breaker.state === 'closed' ? 'active' : 'revoked'}`}>{c.breaker.state}</span>
                </td>
                <td class="num">{num(c.recent.requests)}</td>
                <td class="num">{c.recent.requests > 0 ? `${(c.recent.error_rate * 100).toFixed(1)} %` : '—'}</td>
                <td class="num">{c.recent.mean_latency_ms === null ? '—' : `${num(c.recent.mean_latency_ms)} ms`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="card table-wrap">
        <table>
          <caption>Open tasks</caption>
          <thead>
            <tr>
              <th scope="col">State</th>
              <th scope="col" class="num">
                Tasks
              </th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(h.open_tasks).map(([state, n]) => (
              <tr key={state}>
                <th scope="row">
                  <a href="#/tasks">{state}</a>
                </th>
                <td class="num">{num(n)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
