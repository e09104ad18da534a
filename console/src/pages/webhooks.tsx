// Alert webhooks: create one (its signing secret shown once, under the button that created it), list them, edit,
// enable/disable, delete, send one a signed test event (its outcome shown on its row), and open one's deliveries with
// what fired them and their outcome.
import { useState } from 'preact/hooks';
import { call, qs } from '../api.ts';
import { time } from '../format.ts';
import { Pager, usePaging } from '../pager.tsx';
import { errorText, useLoad } from '../use-load.ts';
import { Deliveries } from './webhooks/deliveries.tsx';
import { type Delivery, outcomeText } from './webhooks/delivery-types.ts';
import { WebhookEdit } from './webhooks/webhook-edit.tsx';
import { WebhookForm, type Webhook } from './webhooks/webhook-form.tsx';
import './webhooks/webhooks.css';

interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor?: string;
}

export function Webhooks({ open }: { open: string | null }) {
  const paging = usePaging();
  const list = useLoad(
    () => call<Page<Webhook>>(`/admin/webhooks${qs({ limit: 50, cursor: paging.cursor })}`),
    [paging.cursor],
  );
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [tested, setTested] = useState<Record<string, { text: string; bad: boolean }>>({});
  const [testing, setTesting] = useState<string | null>(null);
  const [sent, setSent] = useState(0);
  const change = async (w: Webhook, how: 'toggle' | 'delete') => {
    setError(null);
    try {
      const path = `/admin/webhooks/${encodeURIComponent(w.id)}`;
      await (how === 'delete'
        ? call(path, { method: 'DELETE' })
        : call(path, { method: 'PATCH', json: { enabled: !w.enabled } }));
      list.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const sendTest = async (w: Webhook) => {
    setTesting(w.id);
    try {
      const d = await call<Delivery>(`/admin/webhooks/${encodeURIComponent(w.id)}/test`, { method: 'POST' });
      setTested({ ...tested, [w.id]: { text: outcomeText('Test event', d), bad: d.state !== 'delivered' } });
      setSent(sent + 1);
    } catch (e) {
      setTested({ ...tested, [w.id]: { text: errorText(e), bad: true } });
    } finally {
      setTesting(null);
    }
  };
  return (
    <section>
      <h1 tabIndex={-1}>Webhooks</h1>
      <WebhookForm
        onCreated={() => {
          paging.reset();
          list.reload();
        }}
      />
      {(list.error || error) && (
        <p role="alert" class="error">
          {list.error ?? error}
        </p>
      )}
      <div class="table-wrap">
        <table class="webhooks">
          <caption>{list.data ? `${list.data.data.length} webhooks on this page` : 'Loading…'}</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.data ?? []).map((w) => (
              <tr key={w.id}>
                <th scope="row" class="wrap">
                  {w.url}
                  <br />
                  <code>{w.id}</code>
                  {w.description && <div class="muted">{w.description}</div>}
                </th>
                <td>{w.events.join(', ')}</td>
                <td>
                  <span class={`pill ${w.enabled ? 'active' : 'revoked'}`}>{w.enabled ? 'enabled' : 'disabled'}</span>
                </td>
                <td>{time(w.created_at)}</td>
                <td>
                  <span class="actions">
                    <a href={`#/webhooks/${encodeURIComponent(w.id)}`}>Deliveries</a>
                    <button
                      data-write="webhooks"
                      type="button"
                      class="quiet"
                      disabled={testing !== null}
                      onClick={() => void sendTest(w)}
                      aria-label={`Send test to ${w.url}`}
                    >
                      Send test
                    </button>
                    <button
                      data-write="webhooks"
                      type="button"
                      class="quiet"
                      onClick={() => setEditing(w)}
                      aria-label={`Edit ${w.url}`}
                    >
                      Edit
                    </button>
                    <button
                      data-write="webhooks"
                      type="button"
                      class="quiet"
                      onClick={() => void change(w, 'toggle')}
                      aria-label={`${w.enabled ? 'Disable' : 'Enable'} ${w.url}`}
                    >
                      {w.enabled ? 'Disable' : 'Enable'}
                    </button>
                    <button
                      data-write="webhooks"
                      type="button"
                      class="quiet"
                      onClick={() => void change(w, 'delete')}
                      aria-label={`Delete ${w.url}`}
                    >
                      Delete
                    </button>
                  </span>
                  {tested[w.id] && (
                    <p
                      class={tested[w.id]!.bad ? 'error webhook-outcome' : 'webhook-outcome'}
                      role={tested[w.id]!.bad ? 'alert' : 'status'}
                    >
                      {tested[w.id]!.text}
                    </p>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager paging={paging} hasMore={list.data?.has_more ?? false} nextCursor={list.data?.next_cursor} />
      {editing && (
        <WebhookEdit
          key={editing.id}
          hook={editing}
          onDone={(saved) => {
            setEditing(null);
            if (saved) list.reload();
          }}
        />
      )}
      {open && <Deliveries key={open} webhookId={open} refresh={sent} />}
    </section>
  );
}
