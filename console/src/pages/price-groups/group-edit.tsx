// One price group's page: what it charges now, and its edit form — the multiplier of list prices and a price per
// model (added from the model's current list price, changed in units, removed). Saving PUTs the whole group, which
// replaces it; every change writes an audit line.
import './price-groups.css';
import { useState } from 'preact/hooks';
import { call, callAll } from '../../api.ts';
import { time } from '../../format.ts';
import { amountsOf, fromMicro, priceFields, UNIT_TEXT, withAmounts, type Price } from '../../price-text.ts';
import { errorText, useLoad } from '../../use-load.ts';
import { Fields, groups } from '../price-detail.tsx';
import type { PriceView } from '../prices.tsx';
import { multiplierOf } from './multiplier.ts';
import { GroupPrices, type PriceGroupView } from './group-prices.tsx';

type Draft = { base: Price; values: Record<string, string> };

const draftOf = (p: Price): Draft => ({
  base: p,
  values: Object.fromEntries(priceFields(p).map((f) => [f.path, fromMicro(f.micro)])),
});

function ModelPrice(props: {
  model: string;
  draft: Draft;
  onInput: (path: string, v: string) => void;
  onRemove: () => void;
}) {
  const fields = priceFields(props.draft.base);
  const prefix = `group-${props.model}`;
  return (
    <fieldset class="group-model-price" data-model={props.model}>
      <legend>
        {props.model} <span class="muted">({UNIT_TEXT[props.draft.base.unit]})</span>
      </legend>
      {groups(fields).map(([group, list]) =>
        group ? (
          <fieldset key={group}>
            <legend>{group}</legend>
            <Fields list={list} values={props.draft.values} onInput={props.onInput} idPrefix={prefix} />
          </fieldset>
        ) : (
          <Fields key="" list={list} values={props.draft.values} onInput={props.onInput} idPrefix={prefix} />
        ),
      )}
      <button type="button" class="quiet" onClick={props.onRemove} aria-label={`Remove the price of ${props.model}`}>
        Remove
      </button>
    </fieldset>
  );
}

function GroupForm({ group, onDone }: { group: PriceGroupView; onDone: () => void }) {
  const models = useLoad(() => callAll<PriceView>('/admin/prices'), []);
  const [multiplier, setMultiplier] = useState(String(group.multiplier));
  const [drafts, setDrafts] = useState<Record<string, Draft>>(() =>
    Object.fromEntries(Object.entries(group.prices).map(([m, p]) => [m, draftOf(p)])),
  );
  const [adding, setAdding] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const others = (models.data ?? []).filter((m) => !(m.model in drafts));
  const add = () => {
    const m = others.find((x) => x.model === adding) ?? others[0];
    if (!m) return;
    setDrafts((d) => ({ ...d, [m.model]: draftOf(m.price) }));
    setAdding('');
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const mult = multiplierOf(multiplier);
    if (mult === null) return setError('Multiplier: a number from 0 to 1000 with at most 6 decimals (1 = list price)');
    const prices: Record<string, Price> = {};
    for (const [model, d] of Object.entries(drafts)) {
      const r = amountsOf(priceFields(d.base), d.values);
      if ('error' in r) return setError(`${model}: ${r.error}`);
      prices[model] = withAmounts(d.base, r.amounts);
    }
    setBusy(true);
    try {
      await call(`/admin/price-groups/${encodeURIComponent(group.name)}`, {
        method: 'PUT',
        json: { multiplier: mult, prices },
      });
      onDone();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="card form-grid"
      id="edit-price-group"
      data-write="prices"
      onSubmit={(e) => void submit(e)}
      aria-labelledby="edit-group-title"
      noValidate
    >
      <h2 id="edit-group-title">Change the price group</h2>
      <label for="edit-group-multiplier">Multiplier of list prices (1 = list price)</label>
      <input
        id="edit-group-multiplier"
        inputMode="decimal"
        value={multiplier}
        onInput={(e) => setMultiplier(e.currentTarget.value)}
      />
      <h3>Prices set per model (units)</h3>
      {Object.keys(drafts).length === 0 && <p class="muted">None: every model at list price × multiplier.</p>}
      {Object.entries(drafts).map(([model, d]) => (
        <ModelPrice
          key={model}
          model={model}
          draft={d}
          onInput={(path, v) =>
            setDrafts((all) => ({ ...all, [model]: { ...d, values: { ...all[model]!.values, [path]: v } } }))
          }
          onRemove={() => setDrafts((all) => Object.fromEntries(Object.entries(all).filter(([m]) => m !== model)))}
        />
      ))}
      <div class="group-add">
        <div>
          <label for="group-add-model">Set a price for a model (starts from its list price)</label>
          <select id="group-add-model" value={adding} onChange={(e) => setAdding(e.currentTarget.value)}>
            {others.map((m) => (
              <option key={m.model} value={m.model}>
                {m.model}
              </option>
            ))}
          </select>
        </div>
        <button type="button" class="quiet" onClick={add} disabled={others.length === 0}>
          Add model price
        </button>
      </div>
      {(error || models.error) && (
        <p role="alert" class="error">
          {error ?? models.error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        Save price group
      </button>
    </form>
  );
}

export function PriceGroupDetail({ name }: { name: string }) {
  const group = useLoad(() => call<PriceGroupView>(`/admin/price-groups/${encodeURIComponent(name)}`), [name]);
  const g = group.data;
  return (
    <section class="price-groups">
      <p>
        <a href="#/price-groups">← All price groups</a>
      </p>
      <h1 tabIndex={-1}>Price group {name}</h1>
      {group.error && (
        <p role="alert" class="error">
          {group.error}
        </p>
      )}
      {g && (
        <>
          <div class="card">
            <dl class="facts" id="group-now">
              <dt>Multiplier</dt>
              <dd>× {g.multiplier} of list prices</dd>
              <dt>Prices set per model</dt>
              <dd>
                <GroupPrices prices={g.prices} />
              </dd>
              <dt>Created</dt>
              <dd>{time(g.created_at)}</dd>
              <dt>Updated</dt>
              <dd>{time(g.updated_at)}</dd>
            </dl>
          </div>
          {/* Remounted after a save: the form starts from what is stored now. */}
          <GroupForm key={g.updated_at} group={g} onDone={group.reload} />
        </>
      )}
    </section>
  );
}
