// What credit came in: the codes redeemed, and the payment events Stripe delivered with their outcome.
import { call, qs } from '../../api.ts';
import { num, time, units } from '../../format.ts';
import { Pager, usePaging } from '../../pager.tsx';
import { useLoad } from '../../use-load.ts';
import { Holder } from './holder.tsx';
import { pill, type Page, type PaymentEvent, type Redemption } from './types.ts';

export function Redemptions({ version }: { version: number }) {
  const paging = usePaging();
  const list = useLoad(
    () => call<Page<Redemption>>(`/admin/credit/redemptions${qs({ limit: 50, cursor: paging.cursor })}`),
    [paging.cursor, version],
  );
  return (
    <section aria-labelledby="redemptions-title">
      <h2 id="redemptions-title">Redemptions</h2>
      {list.error && (
        <p role="alert" class="error">
          {list.error}
        </p>
      )}
      <div class="table-wrap">
        <table>
          <caption>{list.data ? `${list.data.data.length} redemptions on this page` : 'Loading…'}</caption>
          <thead>
            <tr>
              <th scope="col">Redeemed</th>
              <th scope="col">Code</th>
              <th scope="col">Batch</th>
              <th scope="col" class="num">
                Units
              </th>
              <th scope="col">Credited to</th>
              <th scope="col">By token</th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.data ?? []).map((r) => (
              <tr key={r.code_id}>
                <td>{time(r.redeemed_at)}</td>
                <td>
                  <code>{r.hint}</code>
                </td>
                <td>
                  <a href={`#/credit/${encodeURIComponent(r.batch_id)}`}>{r.batch_name ?? r.batch_id}</a>
                </td>
                <td class="num">{units(r.amount)}</td>
                <td>
                  <Holder kind={r.holder_kind} id={r.holder_id} />
                </td>
                <td>{r.token_id ? <code>{r.token_id}</code> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager paging={paging} hasMore={list.data?.has_more ?? false} nextCursor={list.data?.next_cursor} />
    </section>
  );
}

export function PaymentEvents({ version }: { version: number }) {
  const paging = usePaging();
  const list = useLoad(
    () => call<Page<PaymentEvent>>(`/admin/credit/payments${qs({ limit: 50, cursor: paging.cursor })}`),
    [paging.cursor, version],
  );
  return (
    <section aria-labelledby="payments-title">
      <h2 id="payments-title">Payment events</h2>
      {list.error && (
        <p role="alert" class="error">
          {list.error}
        </p>
      )}
      <div class="table-wrap">
        <table>
          <caption>{list.data ? `${list.data.data.length} payment events on this page` : 'Loading…'}</caption>
          <thead>
            <tr>
              <th scope="col">Received</th>
              <th scope="col">Event</th>
              <th scope="col">Account</th>
              <th scope="col" class="num">
                Paid (minor units)
              </th>
              <th scope="col" class="num">
                Units
              </th>
              <th scope="col">Outcome</th>
              <th scope="col" class="num">
                Deliveries
              </th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.data ?? []).map((e) => (
              <tr key={e.id}>
                <td>{time(e.created_at)}</td>
                <td class="wrap">
                  {e.event_id ? <code>{e.event_id}</code> : '—'}
                  {e.type && <div class="muted">{e.type}</div>}
                </td>
                <td>
                  <Holder kind={e.account_id ? 'account' : null} id={e.account_id} />
                </td>
                <td class="num">{e.amount_total !== null ? `${num(e.amount_total)} ${e.currency ?? ''}` : '—'}</td>
                <td class="num">{units(e.amount)}</td>
                <td class="wrap">
                  <span class={pill(e.outcome)}>{e.outcome}</span>
                  {e.detail && <div class="muted">{e.detail}</div>}
                </td>
                <td class="num">{e.deliveries}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager paging={paging} hasMore={list.data?.has_more ?? false} nextCursor={list.data?.next_cursor} />
    </section>
  );
}
