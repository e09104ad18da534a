// One batch's codes: each one's last characters, state, and who redeemed it (the codes themselves were shown once).
import { call } from '../../api.ts';
import { time, units } from '../../format.ts';
import { useLoad } from '../../use-load.ts';
import { Holder } from './holder.tsx';
import { pill, type Batch, type Code } from './types.ts';

export function BatchCodes({ batchId }: { batchId: string }) {
  const detail = useLoad(
    () => call<Batch & { codes: Code[] }>(`/admin/credit/batches/${encodeURIComponent(batchId)}`),
    [batchId],
  );
  const b = detail.data;
  return (
    <section aria-labelledby="codes-title">
      <h2 id="codes-title">
        Codes of <code>{batchId}</code>
        {b?.name ? ` (${b.name})` : ''}
      </h2>
      {detail.error && (
        <p role="alert" class="error">
          {detail.error}
        </p>
      )}
      {b && (
        <p>
          {units(b.amount)} units each · {b.redeemed} of {b.count} redeemed · expires {time(b.expires_at)} ·{' '}
          <span class={pill(b.state)}>{b.state}</span>
        </p>
      )}
      <div class="table-wrap">
        <table>
          <caption>{b ? `${b.codes.length} codes` : 'Loading…'}</caption>
          <thead>
            <tr>
              <th scope="col">Code</th>
              <th scope="col">State</th>
              <th scope="col">Redeemed</th>
              <th scope="col">Credited to</th>
              <th scope="col">By token</th>
            </tr>
          </thead>
          <tbody>
            {(b?.codes ?? []).map((c) => (
              <tr key={c.id}>
                <th scope="row">
                  <code>{c.hint}</code>
                </th>
                <td>
                  <span class={pill(c.state)}>{c.state}</span>
                </td>
                <td>{time(c.redeemed_at)}</td>
                <td>
                  <Holder kind={c.holder_kind} id={c.holder_id} />
                </td>
                <td>{c.token_id ? <code>{c.token_id}</code> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
