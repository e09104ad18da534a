// Upstream channels: list and enable/disable. Their keys never reach the browser (the admin API does not return them).
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { time } from '../format.ts';
import { errorText, useLoad } from '../use-load.ts';

interface Channel {
  id: string;
  name: string;
  kind: string;
  base_url: string;
  models: string[] | null;
  status: 'enabled' | 'disabled';
  priority: number;
  weight: number;
  updated_at: number;
}

export function Channels() {
  const channels = useLoad(() => call<{ data: Channel[] }>('/admin/channels').then((r) => r.data), []);
  const [error, setError] = useState<string | null>(null);
  const toggle = async (c: Channel) => {
    setError(null);
    try {
      await call(`/admin/channels/${encodeURIComponent(c.id)}/${c.status === 'enabled' ? 'disable' : 'enable'}`, { method: 'POST' });
      channels.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <section>
      <h1 tabIndex={-1}>Channels</h1>
      {(channels.error || error) && <p role="alert" class="error">{channels.error ?? error}</p>}
      <div class="table-wrap">
        <table>
          <caption>{channels.data ? `${channels.data.length} channels (upstream keys are stored encrypted and never shown)` : 'Loading…'}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Base URL</th>
              <th scope="col">Models</th>
              <th scope="col" class="num">Priority</th>
              <th scope="col" class="num">Weight</th>
              <th scope="col">Status</th>
              <th scope="col">Updated</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(channels.data ?? []).map((c) => (
              <tr key={c.id}>
                <th scope="row">
                  {c.name}
                  <br />
                  <code>{c.id}</code>
                </th>
                <td>{c.kind}</td>
                <td class="wrap">{c.base_url}</td>
                <td>{c.models ? c.models.join(', ') : `all ${c.kind} models`}</td>
                <td class="num">{c.priority}</td>
                <td class="num">{c.weight}</td>
                <td>
                  <span class={`pill ${c.status === 'enabled' ? 'active' : 'revoked'}`}>{c.status}</span>
                </td>
                <td>{time(c.updated_at)}</td>
                <td>
                  <button type="button" class="quiet" onClick={() => void toggle(c)} aria-label={`${c.status === 'enabled' ? 'Disable' : 'Enable'} ${c.name}`}>
                    {c.status === 'enabled' ? 'Disable' : 'Enable'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
