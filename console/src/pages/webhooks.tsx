// Alert webhooks: create one (its signing secret shown once), list them, enable/disable, delete, and open one's
// deliveries with their outcome.
import { useState } from 'preact/hooks';
import { call, qs } from '../api.ts';
import { time } from '../format.ts';
import { Pager, usePaging } from '../pager.tsx';
import { errorText, useLoad } from '../use-load.ts';
import { Deliveries } from './webhooks/deliveries.tsx';
import { WebhookForm, type Webhook } from './webhooks/webhook-form.tsx';

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
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
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
  return (
    <section>
      <h1 tabIndex={-1}>Webhooks</h1>
      <WebhookForm
        onCreated={(c) => {
          setSecret({ id: c.id, secret: c.secret });
          paging.reset();
          list.reload();
        }}
      />
      {secret && (
        <div class="card secret" role="status">
          <p>
            Signing secret of {secret.id} — shown only this once; verify its deliveries with it (Standard Webhooks):
          </p>
          <code id="new-webhook-secret" class="wrap">
            {secret.secret}
          </code>
        </div>
      )}
      {(list.error || error) && (
        <p role="alert" class="error">
          {list.error ?? error}
        </p>
      )}
      <div class="table-wrap">
        <table>
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
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager paging={paging} hasMore={list.data?.has_more ?? false} nextCursor={list.data?.next_cursor} />
      {open && <Deliveries key={open} webhookId={open} />}
    </section>
  );
}
