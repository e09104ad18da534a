// Upstream channels: list, add and edit (channels/channel-form.tsx), health (circuit breaker), masked keys, a test
// call, enable/disable, and their accounts' capacity live (channels/channel-capacity.tsx). The admin API never returns a key in full, so none reaches the
// browser.
import { useState } from 'preact/hooks';
import { call, callAll } from '../api.ts';
import { time } from '../format.ts';
import { errorText, useLoad } from '../use-load.ts';
import { Name, plainName } from '../name.tsx';
import { ChannelCapacityTable } from './channels/channel-capacity.tsx';
import { LimitsForm, type ModelLimits } from './channels/limits-form.tsx';
import { ChannelForm } from './channels/channel-form.tsx';
import type { ChannelKindView } from '../../../src/core/admin/channel-kinds.ts';

interface Channel {
  id: string;
  name: string;
  kind: string;
  base_url: string;
  models: string[] | null;
  status: 'enabled' | 'disabled';
  priority: number;
  weight: number;
  account?: string | null;
  updated_at: number;
  model_limits: ModelLimits | null;
  keys?: Record<string, string | null>;
  breaker?: {
    state: string;
    consecutive_failures: number;
    open_until: number | null;
    recent_failures: Array<{ at: number; code: string }>;
  } | null;
}

interface Check {
  ok: boolean;
  latency_ms: number;
  error: { code: string; message: string } | null;
}

export function Channels() {
  const channels = useLoad(() => callAll<Channel>('/admin/channels'), []);
  const [error, setError] = useState<string | null>(null);
  const [checks, setChecks] = useState<Record<string, Check | 'testing'>>({});
  const [editing, setEditing] = useState<Channel | null>(null);
  const kinds = useLoad(() => call<{ data: ChannelKindView[] }>('/admin/channel-kinds'), []);
  // 'new': the add form; a channel: its edit form.
  const [form, setForm] = useState<Channel | 'new' | null>(null);
  const openForm = (f: Channel | 'new') => {
    setForm(f);
    // The form opens below the table: brought into view, its first field focused.
    requestAnimationFrame(() => {
      document.getElementById('channel-form')?.scrollIntoView({ block: 'start' });
      document.querySelector<HTMLElement>('#channel-form select, #channel-form input')?.focus();
    });
  };
  const test = async (c: Channel) => {
    setChecks((m) => ({ ...m, [c.id]: 'testing' }));
    try {
      const r = await call<Check>(`/admin/channels/${encodeURIComponent(c.id)}/test`, { method: 'POST' });
      setChecks((m) => ({ ...m, [c.id]: r }));
    } catch (e) {
      setChecks((m) => ({
        ...m,
        [c.id]: { ok: false, latency_ms: 0, error: { code: 'error', message: errorText(e) } },
      }));
    }
  };
  const toggle = async (c: Channel) => {
    setError(null);
    try {
      await call(`/admin/channels/${encodeURIComponent(c.id)}/${c.status === 'enabled' ? 'disable' : 'enable'}`, {
        method: 'POST',
      });
      channels.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <section>
      <h1 tabIndex={-1}>Channels</h1>
      {(channels.error || error) && (
        <p role="alert" class="error">
          {channels.error ?? error}
        </p>
      )}
      <div class="toolbar">
        <button data-write="upstream-keys" type="button" onClick={() => openForm('new')}>
          Add a channel
        </button>
      </div>
      <div class="table-wrap">
        <table>
          <caption>
            {channels.data
              ? `${channels.data.length} channels (upstream keys are stored encrypted and never shown)`
              : 'Loading…'}
          </caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Base URL</th>
              <th scope="col">Models</th>
              <th scope="col" class="num">
                Priority
              </th>
              <th scope="col" class="num">
                Weight
              </th>
              <th scope="col">Status</th>
              <th scope="col">Health</th>
              <th scope="col">Keys</th>
              <th scope="col">Updated</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(channels.data ?? []).map((c) => (
              <tr key={c.id}>
                <th scope="row">
                  <Name value={c.name} />
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
                <td>
                  {c.breaker ? (
                    <>
                      <span class={`pill ${c.breaker.state === 'closed' ? 'active' : 'revoked'}`}>
                        breaker {c.breaker.state}
                      </span>
                      {c.breaker.recent_failures.length > 0 && (
                        <div class="muted">
                          last failure {c.breaker.recent_failures[c.breaker.recent_failures.length - 1]!.code} at{' '}
                          {time(c.breaker.recent_failures[c.breaker.recent_failures.length - 1]!.at)}
                        </div>
                      )}
                    </>
                  ) : (
                    '—'
                  )}
                  <CheckResult check={checks[c.id]} />
                </td>
                <td>
                  {Object.entries(c.keys ?? {}).map(([k, v]) => (
                    <div key={k}>
                      {k}: <code>{v ?? 'not set'}</code>
                    </div>
                  ))}
                </td>
                <td>{time(c.updated_at)}</td>
                <td>
                  <span class="actions">
                    <button
                      data-write="channels"
                      type="button"
                      class="quiet"
                      onClick={() => void test(c)}
                      aria-label={`Test ${plainName(c.name)}`}
                    >
                      Test
                    </button>
                    <button
                      data-write="upstream-keys"
                      type="button"
                      class="quiet"
                      onClick={() => openForm(c)}
                      aria-label={`Edit ${plainName(c.name)}`}
                    >
                      Edit
                    </button>
                    <button
                      data-write="upstream-keys"
                      type="button"
                      class="quiet"
                      onClick={() => setEditing(c)}
                      aria-label={`Limits of ${plainName(c.name)}`}
                    >
                      Limits
                    </button>
                    <button
                      data-write="channels"
                      type="button"
                      class="quiet"
                      onClick={() => void toggle(c)}
                      aria-label={`${c.status === 'enabled' ? 'Disable' : 'Enable'} ${plainName(c.name)}`}
                    >
                      {c.status === 'enabled' ? 'Disable' : 'Enable'}
                    </button>
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {editing && (
        <LimitsForm
          key={editing.id}
          id={editing.id}
          name={plainName(editing.name)}
          limits={editing.model_limits}
          onDone={() => {
            setEditing(null);
            channels.reload();
          }}
        />
      )}
      {form && kinds.data && (
        <ChannelForm
          key={form === 'new' ? 'new' : form.id}
          kinds={kinds.data.data}
          channel={form === 'new' ? null : form}
          onCancel={() => setForm(null)}
          onDone={() => {
            setForm(null);
            channels.reload();
          }}
        />
      )}
      {form && kinds.error && (
        <p role="alert" class="error">
          {kinds.error}
        </p>
      )}
      <h2>Upstream capacity</h2>
      {channels.data && <ChannelCapacityTable channels={channels.data} />}
    </section>
  );
}

function CheckResult({ check }: { check: Check | 'testing' | undefined }) {
  if (!check) return null;
  if (check === 'testing') return <div role="status">testing…</div>;
  return (
    <div role="status" class={check.ok ? '' : 'error'}>
      test: {check.ok ? `ok in ${check.latency_ms} ms` : `failed — ${check.error?.code}: ${check.error?.message}`}
    </div>
  );
}
