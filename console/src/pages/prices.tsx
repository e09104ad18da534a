// Model prices: every model's live price, its unit and whether the operator overrides it; a model's page sets or
// resets its price and shows its history (who changed it, when, from what to what).
import { useState } from 'preact/hooks';
import { call, callAll } from '../api.ts';
import { priceLines, UNIT_TEXT, type Price } from '../price-text.ts';
import { errorText, useLoad } from '../use-load.ts';

export interface PriceView {
  model: string;
  kind: string;
  owned_by: string;
  price: Price;
  aliases?: string[];
  hidden?: boolean;
  price_overridden: boolean;
}

export function Lines({ price }: { price: Price | null }) {
  return (
    <>
      {priceLines(price).map((l, i) => (
        <div key={i}>{l}</div>
      ))}
    </>
  );
}

export function Source({ overridden }: { overridden: boolean }) {
  return overridden ? <span class="pill active">override</span> : <span class="pill">catalogue</span>;
}

export function Prices() {
  const prices = useLoad(() => callAll<PriceView>('/admin/prices'), []);
  const [search, setSearch] = useState('');
  const q = search.trim().toLowerCase();
  const all = prices.data ?? [];
  const shown = all.filter(
    (p) =>
      !q ||
      p.model.toLowerCase().includes(q) ||
      p.kind.includes(q) ||
      (p.aliases ?? []).some((a) => a.toLowerCase().includes(q)),
  );
  return (
    <section>
      <h1 tabIndex={-1}>Prices</h1>
      <p class="muted">
        Amounts in units (1 unit = 1,000,000 micro-units). A price set here applies at once on every instance; a reset
        returns the model to the catalogue price (the catalogue file's, else the built-in one). Open a model to change
        its price or see its history.
      </p>
      <div class="toolbar">
        <label for="price-search">Search models</label>
        <input
          id="price-search"
          type="search"
          placeholder="name, alias or kind"
          value={search}
          onInput={(e) => setSearch(e.currentTarget.value)}
        />
      </div>
      {prices.error && (
        <p role="alert" class="error">
          {prices.error}
        </p>
      )}
      <div class="table-wrap">
        <table>
          <caption>
            {prices.loading && !prices.data ? 'Loading prices…' : `${shown.length} of ${all.length} models`}
          </caption>
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Kind</th>
              <th scope="col">Unit</th>
              <th scope="col">Price</th>
              <th scope="col">Source</th>
              <th scope="col">History</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((p) => (
              <tr key={p.model} data-model={p.model}>
                <th scope="row">
                  <a href={`#/prices/${encodeURIComponent(p.model)}`}>{p.model}</a>
                  {p.aliases?.length ? <div class="muted">also {p.aliases.join(', ')}</div> : null}
                </th>
                <td>{p.kind}</td>
                <td>{UNIT_TEXT[p.price.unit]}</td>
                <td>
                  <Lines price={p.price} />
                </td>
                <td>
                  <Source overridden={p.price_overridden} />
                </td>
                <td>
                  <a
                    href={`#/prices/${encodeURIComponent(p.model)}`}
                    aria-label={`Change the price of ${p.model} or see its history`}
                  >
                    Change / history
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Drop the override, after a confirmation. */
export function ResetButton({ model, onDone }: { model: string; onDone: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const reset = async () => {
    setError(null);
    try {
      await call(`/admin/prices/${encodeURIComponent(model)}`, { method: 'DELETE' });
      setConfirming(false);
      onDone();
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <div class="actions">
      {confirming ? (
        <>
          <button type="button" class="danger" onClick={() => void reset()}>
            Confirm reset
          </button>
          <button type="button" class="quiet" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </>
      ) : (
        <button data-write="prices" type="button" class="quiet" onClick={() => setConfirming(true)}>
          Reset to the catalogue price
        </button>
      )}
      {error && (
        <span role="alert" class="error">
          {error}
        </span>
      )}
    </div>
  );
}
