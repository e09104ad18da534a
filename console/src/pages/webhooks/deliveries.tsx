// One webhook's deliveries, newest first: what was sent and how it went (attempts, the receiver's status, the last
// error, the next try).
import { call, qs } from '../../api.ts';
import { time } from '../../format.ts';
import { Pager, usePaging } from '../../pager.tsx';
import { useLoad } from '../../use-load.ts';

interface Delivery {
  id: string;
  event_type: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_try_at: number | null;
  delivered_at: number | null;
  created_at: number;
}

export function Deliveries({ webhookId }: { webhookId: string }) {
  const paging = usePaging();
  const list = useLoad(
    () =>
      call<{ data: Delivery[]; has_more: boolean; next_cursor?: string }>(
        `/admin/webhooks/${encodeURIComponent(webhookId)}/deliveries${qs({ limit: 50, cursor: paging.cursor })}`,
      ),
    [webhookId, paging.cursor],
  );
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
      {list.error && (
        <p role="alert" class="error">
          {list.error}
        </p>
      )}
      <div class="table-wrap">
        <table>
          <caption>{list.data ? `${list.data.data.length} deliveries on this page` : 'Loading…'}</caption>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Event</th>
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
            </tr>
          </thead>
          <tbody>
            {(list.data?.data ?? []).map((d) => (
              <tr key={d.id}>
                <td>{time(d.created_at)}</td>
                <td>{d.event_type}</td>
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
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager paging={paging} hasMore={list.data?.has_more ?? false} nextCursor={list.data?.next_cursor} />
    </section>
  );
}
