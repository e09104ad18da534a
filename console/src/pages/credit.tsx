// Credit: redemption code batches (create one — its codes shown once, with a copy button — list, open, revoke), the
// redemptions, and the payment events Stripe delivered.
import { useState } from 'preact/hooks';
import { call, qs } from '../api.ts';
import { ConfirmButton } from '../confirm-button.tsx';
import { time, units } from '../format.ts';
import { Pager, usePaging } from '../pager.tsx';
import { useLoad } from '../use-load.ts';
import { PaymentEvents, Redemptions } from './credit/activity.tsx';
import { BatchCodes } from './credit/batch-codes.tsx';
import { BatchForm } from './credit/batch-form.tsx';
import { pill, type Batch, type Page } from './credit/types.ts';

function NewCodes({ batch, codes, onDone }: { batch: Batch; codes: string[]; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const text = codes.join('\n');
  const copy = () =>
    navigator.clipboard?.writeText(text).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <div class="card secret" role="status">
      <h2>Codes of {batch.name ?? batch.id}</h2>
      <p>
        {codes.length} codes worth {units(batch.amount)} units each, until {time(batch.expires_at)}. Copy them now: they
        are shown only this once and are stored hashed.
      </p>
      <pre id="new-codes" class="wrap">
        {text}
      </pre>
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          Copy codes
        </button>
        {copied && <span>Copied.</span>}
        <button type="button" class="quiet" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

export function Credit({ open }: { open: string | null }) {
  const paging = usePaging();
  const [version, setVersion] = useState(0);
  const list = useLoad(
    () => call<Page<Batch>>(`/admin/credit/batches${qs({ limit: 50, cursor: paging.cursor })}`),
    [paging.cursor, version],
  );
  const [created, setCreated] = useState<{ batch: Batch; codes: string[] } | null>(null);
  const changed = () => setVersion(version + 1);
  return (
    <section>
      <h1 tabIndex={-1}>Credit</h1>
      <BatchForm
        onCreated={({ codes, ...batch }) => {
          setCreated({ batch, codes });
          paging.reset();
          changed();
        }}
      />
      {created && <NewCodes batch={created.batch} codes={created.codes} onDone={() => setCreated(null)} />}
      {list.error && (
        <p role="alert" class="error">
          {list.error}
        </p>
      )}
      <section aria-labelledby="batches-title">
        <h2 id="batches-title">Code batches</h2>
        <div class="table-wrap">
          <table>
            <caption>{list.data ? `${list.data.data.length} batches on this page` : 'Loading…'}</caption>
            <thead>
              <tr>
                <th scope="col">Batch</th>
                <th scope="col" class="num">
                  Units each
                </th>
                <th scope="col" class="num">
                  Redeemed
                </th>
                <th scope="col">Expires</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {(list.data?.data ?? []).map((b) => (
                <tr key={b.id}>
                  <th scope="row" class="wrap">
                    {b.name ?? '—'}
                    <br />
                    <code>{b.id}</code>
                  </th>
                  <td class="num">{units(b.amount)}</td>
                  <td class="num">
                    {b.redeemed} / {b.count}
                  </td>
                  <td>{time(b.expires_at)}</td>
                  <td>
                    <span class={pill(b.state)}>{b.state}</span>
                  </td>
                  <td>
                    {time(b.created_at)}
                    <div class="muted">{b.created_by}</div>
                  </td>
                  <td>
                    <span class="actions">
                      <a href={`#/credit/${encodeURIComponent(b.id)}`}>Codes</a>
                      {b.state !== 'revoked' && (
                        <span data-write="credit">
                          <ConfirmButton
                            label="Revoke"
                            confirm="Confirm revoke"
                            name={b.name ?? b.id}
                            run={() => call(`/admin/credit/batches/${encodeURIComponent(b.id)}`, { method: 'DELETE' })}
                            onDone={changed}
                          />
                        </span>
                      )}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <Pager paging={paging} hasMore={list.data?.has_more ?? false} nextCursor={list.data?.next_cursor} />
      </section>
      {open && <BatchCodes key={`${open}:${version}`} batchId={open} />}
      <Redemptions version={version} />
      <PaymentEvents version={version} />
    </section>
  );
}
