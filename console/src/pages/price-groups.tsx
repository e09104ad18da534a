// Price groups: the list (each group's multiplier of list prices and the prices it sets per model, as text), a form to
// create one, and a group's page (price-groups/group-edit.tsx) to change it. An account is charged by its group's
// prices from the next call on, on every instance; ledger lines keep the price they were charged at.
import './price-groups/price-groups.css';
import { useState } from 'preact/hooks';
import { ApiError, call, callAll } from '../api.ts';
import { time } from '../format.ts';
import { go } from '../router.ts';
import { errorText, useLoad } from '../use-load.ts';
import { GroupPrices, type PriceGroupView } from './price-groups/group-prices.tsx';
import { multiplierOf } from './price-groups/multiplier.ts';

function NewGroup() {
  const [name, setName] = useState('');
  const [multiplier, setMultiplier] = useState('1');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const n = name.trim();
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(n))
      return setError('Name: 1–100 letters, digits, ".", "_" or "-", starting with a letter or digit');
    const m = multiplierOf(multiplier);
    if (m === null) return setError('Multiplier: a number from 0 to 1000 with at most 6 decimals (1 = list price)');
    setBusy(true);
    try {
      // PUT replaces a group of that name: refused here when one exists, so creating never overwrites.
      const exists = await call(`/admin/price-groups/${encodeURIComponent(n)}`).then(
        () => true,
        (err: unknown) => {
          if (err instanceof ApiError && err.status === 404) return false;
          throw err;
        },
      );
      if (exists) return setError(`A price group named ${n} exists already: open it to change it`);
      await call(`/admin/price-groups/${encodeURIComponent(n)}`, { method: 'PUT', json: { multiplier: m } });
      go(`#/price-groups/${encodeURIComponent(n)}`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="card form-grid"
      id="new-price-group"
      data-write="prices"
      onSubmit={(e) => void submit(e)}
      aria-labelledby="new-group-title"
      noValidate
    >
      <h2 id="new-group-title">New price group</h2>
      <label for="group-name">Name</label>
      <input id="group-name" value={name} autoComplete="off" onInput={(e) => setName(e.currentTarget.value)} />
      <label for="group-multiplier">Multiplier of list prices (1 = list price, 0.8 = 20% off)</label>
      <input
        id="group-multiplier"
        inputMode="decimal"
        value={multiplier}
        onInput={(e) => setMultiplier(e.currentTarget.value)}
      />
      <p class="muted">Prices for single models are set on the group's page, after it is created.</p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        Create price group
      </button>
    </form>
  );
}

export function PriceGroups() {
  const list = useLoad(() => callAll<PriceGroupView>('/admin/price-groups'), []);
  const rows = list.data ?? [];
  return (
    <section class="price-groups">
      <h1 tabIndex={-1}>Price groups</h1>
      <p class="muted">
        An account in a price group is charged the group's price for a model it sets, else the list price times the
        group's multiplier. Amounts in units (1 unit = 1,000,000 micro-units). A change applies to calls from then on;
        charges already made keep their price.
      </p>
      {list.error && (
        <p role="alert" class="error">
          {list.error}
        </p>
      )}
      <div class="table-wrap">
        <table id="price-groups">
          <caption>{list.loading && !list.data ? 'Loading…' : `${rows.length} price groups`}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col" class="num">
                Multiplier
              </th>
              <th scope="col">Prices set per model</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((g) => (
              <tr key={g.name} data-group={g.name}>
                <th scope="row">
                  <a href={`#/price-groups/${encodeURIComponent(g.name)}`}>{g.name}</a>
                </th>
                <td class="num">× {g.multiplier}</td>
                <td>
                  <GroupPrices prices={g.prices} />
                </td>
                <td>{time(g.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <NewGroup />
    </section>
  );
}
