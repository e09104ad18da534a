// One webhook's deliveries, newest first: what fired each one (the event, its holder and threshold, from the payload),
// how it went (attempts, the receiver's status, the last error, the next try), and a Redeliver button that sends a
// finished delivery's payload again and shows the outcome.
import { useState } from 'preact/hooks';
import { call, qs } from '../../api.ts';
import { time } from '../../format.ts';
import { Pager, usePaging } from '../../pager.tsx';
import { errorText, useLoad } from '../../use-load.ts';
import { type Delivery, outcomeText } from './delivery-types.ts';

function Holder({ h }: { h: Delivery['holder'] }) {
  if (h === null) return <>—</>;
  return (
    <>
      {h.kind} {h.name ?? ''} <code>{h.id}</code>
    </>
  );
}

/** `refresh`: changed by the page when it sent a delivery (a test), so the list shows it. */
export function Deliveries({ webhookId, refresh }: { webhookId: string; refresh: number }) {
  const paging = usePaging();
  const [said, setSaid] = useState<{ text: string; bad: boolean } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const base = `/admin/webhooks/${encodeURIComponent(webhookId)}/deliveries`;
  const list = useLoad(
    () =>
      call<{ data: Delivery[]; has_more: boolean; next_cursor?: string }>(
        `${base}${qs({ limit: 50, cursor: paging.cursor })}`,
      ),
    [webhookId, paging.cursor, refresh],
  );
  const redeliver = async (d: Delivery) => {
    setSaid(null);
    setBusy(d.id);
    try {
      const r = await call<Delivery>(`${base}/${encodeURIComponent(d.id)}/redeliver`, { method: 'POST' });
      setSaid({ text: outcomeText(`Redelivery of ${d.id}`, r), bad: r.state !== 'delivered' });
      list.reload();
    } catch (e) {
      setSaid({ text: errorText(e), bad: true });
    } finally {
      setBusy(null);
    }
  };
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">
        Deliveries of <code>{webhookId}</code>
      </h2>
      <div class="actions">
        <button type="button" class="quiet" onClick={list.reload}>
          Refresh
        </button>
      </div>
      {(list.error || said) && (
        <p role={said && !said.bad ? 'status' : 'alert'} class={said && !said.bad ? 'webhook-outcome' : 'error'}>
          {list.error ?? said?.text}
        </p>
      )}
      <div class="table-wrap">
        <table class="webhook-deliveries">
          <caption>{list.data ? `${list.data.data.length} deliveries on this page` : 'Loading…'}</caption>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Event</th>
              <th scope="col">Holder</th>
              <th scope="col">Threshold</th>
              <th scope="col">State</th>
              <th scope="col" class="num">
                Attempts
              </th>
              <th scope="col" class="num">
                Last status
              </th>
              <th scope="col">Last error</th>
              <th scope="col">Next try</th>
              <th scope="col">Delivery id</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.data ?? []).map((d) => (
              <tr key={d.id}>
                <td>{time(d.created_at)}</td>
                <td>{d.event_type}</td>
                <td class="wrap">
                  <Holder h={d.holder} />
                </td>
                <td>{d.threshold ?? '—'}</td>
                <td>
                  <span class={`pill ${d.state === 'delivered' ? 'active' : d.state === 'failed' ? 'revoked' : ''}`}>
                    {d.state}
                  </span>
                </td>
                <td class="num">{d.attempts}</td>
                <td class="num">{d.last_status ?? '—'}</td>
                <td class="wrap">{d.last_error ?? '—'}</td>
                <td>{d.next_try_at !== null ? time(d.next_try_at) : '—'}</td>
                <td>
                  <code>{d.id}</code>
                </td>
                <td>
                  <button
                    data-write="webhooks"
                    type="button"
                    class="quiet"
                    disabled={d.state === 'pending' || busy !== null}
                    title={d.state === 'pending' ? 'Pending: its retry is coming' : undefined}
                    onClick={() => void redeliver(d)}
                    aria-label={`Redeliver ${d.id}`}
                  >
                    Redeliver
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager paging={paging} hasMore={list.data?.has_more ?? false} nextCursor={list.data?.next_cursor} />
    </section>
  );
}
