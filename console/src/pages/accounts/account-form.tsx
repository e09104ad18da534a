// One form to create an account or edit one: name, quota, a budget per calendar day, week and month, the time zone
// the periods follow and the price group. Creating sends the fields filled in; editing sends only the fields changed
// (emptied: the value is removed; the budgets go as one list). An edit form is made for the account as stored (its
// owner keys it by accountKey), so a top-up made meanwhile is not undone by a save.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { call } from '../../api.ts';
import { BudgetFields, budgetInputs, budgetList, PERIODS, type Period } from '../../budgets.tsx';
import { fromLocalInput, parseUnits, toLocalInput, unitsInput } from '../../format.ts';
import type { Account } from '../../types.ts';
import { errorText } from '../../use-load.ts';

type Key = 'name' | 'quota' | Period | 'timeZone' | 'priceGroup' | 'expires';
type Values = Record<Key, string>;

type Input = [Key, string, JSX.InputHTMLAttributes<HTMLInputElement>];
// The budget fields (budgets.tsx) go between these two lists.
const BEFORE_BUDGETS: Input[] = [
  ['name', 'Name', { maxLength: 200 }],
  ['quota', 'Quota in units (empty = unlimited)', { type: 'number', min: '0', step: '0.000001' }],
];
const AFTER_BUDGETS: Input[] = [
  [
    'timeZone',
    'Time zone of the budget periods (IANA name; empty = UTC)',
    { maxLength: 64, placeholder: 'Europe/Paris' },
  ],
  ['expires', 'Expires (empty = never)', { type: 'datetime-local' }],
];

/** Changes whenever a field the form edits changes in the stored account. */
export const accountKey = (a: Account) =>
  JSON.stringify([a.id, a.name, a.quota, a.budgets, a.time_zone, a.price_group, a.expires_at]);

function valuesOf(a: Account | null): Values {
  if (!a) return { name: '', quota: '', ...budgetInputs(null), timeZone: '', priceGroup: '', expires: '' };
  return {
    name: a.name,
    quota: unitsInput(a.quota),
    ...budgetInputs(a.budgets),
    timeZone: a.time_zone ?? '',
    priceGroup: a.price_group ?? '',
    expires: toLocalInput(a.expires_at),
  };
}

/** The request body for the fields to send, or an error message. */
function bodyOf(v: Values, send: Key[]): Record<string, unknown> | string {
  const quota = parseUnits(v.quota);
  if (Number.isNaN(quota)) return 'Quota: enter an amount in units with at most six decimals';
  const budgets = budgetList(v);
  if (typeof budgets === 'string') return budgets;
  const body: Record<string, unknown> = {};
  for (const k of send) {
    if (k === 'name') body.name = v.name.trim();
    else if (k === 'quota') body.quota = quota;
    else if (k === 'timeZone') body.time_zone = v.timeZone.trim() || null;
    else if (k === 'priceGroup') body.price_group = v.priceGroup || null;
    else if (k === 'expires') body.expires_at = v.expires ? (fromLocalInput(v.expires) ?? null) : null;
    else body.budgets = budgets;
  }
  return body;
}

/** Time zone names for the field's suggestions, where the browser knows them. */
const zones = (): string[] => (typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []);

export function AccountForm({
  account,
  groups,
  onCreated,
  onSaved,
}: {
  account: Account | null;
  groups: string[];
  onCreated?: (a: Account) => void;
  onSaved?: (a: Account) => void;
}) {
  const initial = valuesOf(account);
  const [values, setValues] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const editing = account !== null;
  const prefix = editing ? 'acc-edit' : 'acc';
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setStatus(null);
    const keys: Key[] = [...BEFORE_BUDGETS, ...AFTER_BUDGETS].map(([k]) => k).concat(PERIODS, 'priceGroup');
    const send = editing ? keys.filter((k) => values[k] !== initial[k]) : keys.filter((k) => values[k].trim() !== '');
    if (editing && send.length === 0) return setStatus('Nothing changed');
    const body = bodyOf(values, send);
    if (typeof body === 'string') return setError(body);
    setBusy(true);
    try {
      if (editing)
        onSaved?.(
          await call<Account>(`/admin/accounts/${encodeURIComponent(account.id)}`, { method: 'PATCH', json: body }),
        );
      else {
        onCreated?.(await call<Account>('/admin/accounts', { method: 'POST', json: body }));
        setValues(valuesOf(null));
      }
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const set = (k: Key) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) =>
    setValues({ ...values, [k]: e.currentTarget.value });
  const input = ([k, label, attrs]: Input) => (
    <div key={k}>
      <label for={`${prefix}-${k}`}>{label}</label>
      <input
        id={`${prefix}-${k}`}
        {...attrs}
        list={k === 'timeZone' ? `${prefix}-zones` : undefined}
        required={k === 'name'}
        value={values[k]}
        onInput={set(k)}
      />
    </div>
  );
  return (
    <form class="form-grid" onSubmit={submit} aria-labelledby={`${prefix}-title`} data-write="accounts">
      {editing ? <h3 id={`${prefix}-title`}>Edit</h3> : <h2 id={`${prefix}-title`}>Create an account</h2>}
      {BEFORE_BUDGETS.map(input)}
      <BudgetFields prefix={prefix} values={values} onInput={(p, v) => setValues({ ...values, [p]: v })} />
      {AFTER_BUDGETS.map(input)}
      <datalist id={`${prefix}-zones`}>
        {zones().map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      <div>
        <label for={`${prefix}-priceGroup`}>Price group</label>
        <select id={`${prefix}-priceGroup`} value={values.priceGroup} onChange={set('priceGroup')}>
          <option value="">None (list prices)</option>
          {values.priceGroup && !groups.includes(values.priceGroup) && (
            <option value={values.priceGroup}>{values.priceGroup}</option>
          )}
          {groups.map((g) => (
            <option key={g} value={g}>
              {g}
            </option>
          ))}
        </select>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {editing ? 'Save account' : 'Create account'}
        </button>
        <span role="status">{status}</span>
      </div>
    </form>
  );
}
