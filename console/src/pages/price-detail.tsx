// One model's price: set it (in units, per amount of its price), reset it to the catalogue price, and its history,
// newest first, paged by the server. Every change writes an audit line and a history row.
import { useState } from 'preact/hooks';
import { call, qs } from '../api.ts';
import { time } from '../format.ts';
import { Pager, usePaging } from '../pager.tsx';
import {
  amountsOf,
  fromMicro,
  priceFields,
  UNIT_TEXT,
  withAmounts,
  type Price,
  type PriceField,
} from '../price-text.ts';
import { errorText, useLoad } from '../use-load.ts';
import { Lines, ResetButton, Source, type PriceView } from './prices.tsx';

interface Change {
  id: number;
  action: 'set' | 'reset';
  old_price: Price | null;
  new_price: Price | null;
  actor: string;
  request_id: string | null;
  at: number;
}

/** Fields in the order given, grouped by their tier. */
export function groups(fields: PriceField[]): Array<[string, PriceField[]]> {
  const out: Array<[string, PriceField[]]> = [];
  for (const f of fields) {
    const last = out[out.length - 1];
    if (last && last[0] === f.group) last[1].push(f);
    else out.push([f.group, [f]]);
  }
  return out;
}

export function Fields({
  list,
  values,
  onInput,
  idPrefix = 'price',
}: {
  list: PriceField[];
  values: Record<string, string>;
  onInput: (path: string, v: string) => void;
  /** Makes the inputs' ids unique where several prices share a page (a price group's). */
  idPrefix?: string;
}) {
  return (
    <div class="price-fields">
      {list.map((f) => (
        <div key={f.path}>
          <label for={`${idPrefix}-${f.path}`}>{f.label}</label>
          <input
            id={`${idPrefix}-${f.path}`}
            inputMode="decimal"
            autoComplete="off"
            value={values[f.path] ?? ''}
            onInput={(e) => onInput(f.path, e.currentTarget.value)}
          />
        </div>
      ))}
    </div>
  );
}

function PriceForm({ view, onDone }: { view: PriceView; onDone: () => void }) {
  const fields = priceFields(view.price);
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((f) => [f.path, fromMicro(f.micro)])),
  );
  const [error, setError] = useState<string | null>(null);
  const set = (path: string, v: string) => setValues((m) => ({ ...m, [path]: v }));
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const r = amountsOf(fields, values);
    if ('error' in r) return setError(r.error);
    try {
      await call(`/admin/prices/${encodeURIComponent(view.model)}`, {
        method: 'PUT',
        json: withAmounts(view.price, r.amounts),
      });
      onDone();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="card form-grid" onSubmit={submit} aria-labelledby="set-price-title" noValidate data-write="prices">
      <h2 id="set-price-title">Set the price</h2>
      <p class="muted">In units {UNIT_TEXT[view.price.unit]}; applied at once.</p>
      {groups(fields).map(([group, list]) =>
        group ? (
          <fieldset key={group}>
            <legend>{group}</legend>
            <Fields list={list} values={values} onInput={set} />
          </fieldset>
        ) : (
          <Fields key="" list={list} values={values} onInput={set} />
        ),
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit">Set price</button>
    </form>
  );
}

function History({ model }: { model: string }) {
  const paging = usePaging();
  const cursor = paging.cursor;
  const page = useLoad(
    () =>
      call<{ data: Change[]; has_more: boolean; next_cursor?: string }>(
        `/admin/prices/${encodeURIComponent(model)}/history${qs({ cursor, limit: 20 })}`,
      ),
    [model, cursor],
  );
  const rows = page.data?.data ?? [];
  return (
    <div class="card">
      <h2>History</h2>
      {page.error && (
        <p role="alert" class="error">
          {page.error}
        </p>
      )}
      {page.loading && !page.data && <p class="muted">Loading…</p>}
      {page.data && !rows.length && paging.page === 1 && (
        <p class="muted">No change yet: the catalogue price has always applied.</p>
      )}
      {(rows.length > 0 || paging.page > 1) && (
        <>
          <div class="table-wrap">
            <table id="price-history">
              <caption>Every change, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Change</th>
                  <th scope="col">Old price</th>
                  <th scope="col">New price</th>
                  <th scope="col">By</th>
                  <th scope="col">Request</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <tr key={c.id}>
                    <td>{time(c.at)}</td>
                    <td>{c.action === 'set' ? 'set' : 'reset to catalogue'}</td>
                    <td>
                      <Lines price={c.old_price} />
                    </td>
                    <td>
                      <Lines price={c.new_price} />
                    </td>
                    <td class="wrap">{c.actor}</td>
                    <td class="wrap">{c.request_id ? <code>{c.request_id}</code> : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager paging={paging} hasMore={page.data?.has_more ?? false} nextCursor={page.data?.next_cursor} />
        </>
      )}
    </div>
  );
}

export function PriceDetail({ model }: { model: string }) {
  const view = useLoad(() => call<PriceView>(`/admin/prices/${encodeURIComponent(model)}`), [model]);
  // Bumped after each change: the form starts from the new price and the history reloads from its first page.
  const [version, setVersion] = useState(0);
  const changed = () => {
    view.reload();
    setVersion((v) => v + 1);
  };
  const v = view.data;
  return (
    <section>
      <p>
        <a href="#/prices">← All prices</a>
      </p>
      <h1 tabIndex={-1}>Price of {model}</h1>
      {view.error && (
        <p role="alert" class="error">
          {view.error}
        </p>
      )}
      {v && (
        <>
          <div class="card">
            <dl class="facts" id="current-price">
              <dt>Model</dt>
              <dd>{v.model}</dd>
              <dt>Kind</dt>
              <dd>{v.kind}</dd>
              <dt>Unit</dt>
              <dd>{UNIT_TEXT[v.price.unit]}</dd>
              <dt>Price (units)</dt>
              <dd>
                <Lines price={v.price} />
              </dd>
              <dt>Source</dt>
              <dd>
                <Source overridden={v.price_overridden} />
              </dd>
            </dl>
            {v.price_overridden && <ResetButton model={v.model} onDone={changed} />}
          </div>
          <PriceForm key={`${v.model}:${version}:${JSON.stringify(v.price)}`} view={v} onDone={changed} />
        </>
      )}
      {/* Remounted after a change: back to the first page, where the change is. */}
      {v && <History key={version} model={v.model} />}
    </section>
  );
}
