// One form to create a token or edit one: name, model allow-list, quota, rate limits, expiry, the token's own budgets
// (as an account's: budgets.tsx) and the account it belongs to (picked from the accounts; none = no account).
// Creating sends the fields filled in; editing sends only the fields changed (emptied: the limit is removed; the
// budgets go as one list). An edit form is made for the token as stored (its owner keys it by editableKey), so a
// top-up made meanwhile is not undone by a save.
import { useState } from 'preact/hooks';
import type { JSX } from 'preact';
import { call } from '../../api.ts';
import { BudgetFields, budgetInputs, budgetList, PERIODS, type Period } from '../../budgets.tsx';
import { fromLocalInput, parseUnits, toLocalInput, unitsInput } from '../../format.ts';
import type { Account, CreatedToken, Token } from '../../types.ts';
import { errorText } from '../../use-load.ts';
import { plainName } from '../../name.tsx';

type Key = 'name' | 'models' | 'quota' | 'rpm' | 'tpm' | 'concurrency' | 'expires' | Period | 'account';
type Values = Record<Key, string>;

const count = { type: 'number', min: '1', step: '1' } as const;
const FIELDS: Array<[Key, string, JSX.InputHTMLAttributes<HTMLInputElement>]> = [
  ['name', 'Name', { maxLength: 200 }],
  ['models', 'Models (comma-separated; empty = all)', {}],
  ['quota', 'Quota in units (empty = unlimited)', { type: 'number', min: '0', step: '0.000001' }],
  ['rpm', 'Requests per minute (empty = no limit)', count],
  ['tpm', 'Tokens per minute (empty = no limit)', count],
  ['concurrency', 'Calls at once (empty = no limit)', count],
  ['expires', 'Expires (empty = never)', { type: 'datetime-local' }],
];

/** Changes whenever a field the form edits changes in the stored token. */
export const editableKey = (t: Token) =>
  JSON.stringify([
    t.id,
    t.name,
    t.models,
    t.quota,
    t.rpm_limit,
    t.tpm_limit,
    t.concurrency_limit,
    t.expires_at,
    t.budgets,
    t.account_id,
  ]);

function valuesOf(t: Token | null): Values {
  const n = (v: number | null) => (v === null ? '' : String(v));
  if (!t)
    return {
      name: '',
      models: '',
      quota: '',
      rpm: '',
      tpm: '',
      concurrency: '',
      expires: '',
      ...budgetInputs(null),
      account: '',
    };
  return {
    name: t.name,
    models: t.models ? t.models.join(', ') : '',
    quota: unitsInput(t.quota),
    rpm: n(t.rpm_limit),
    tpm: n(t.tpm_limit),
    concurrency: n(t.concurrency_limit),
    expires: toLocalInput(t.expires_at),
    ...budgetInputs(t.budgets),
    account: t.account_id ?? '',
  };
}

/** The request body for the fields to send, or an error message. */
function bodyOf(v: Values, send: Key[]): Record<string, unknown> | string {
  const quota = parseUnits(v.quota);
  if (Number.isNaN(quota)) return 'Quota: enter an amount in units with at most six decimals';
  const budgets = budgetList(v);
  if (typeof budgets === 'string') return budgets;
  const int = (s: string) => (s.trim() === '' ? null : Number(s));
  const list = v.models
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  const all: Record<Key, [string, unknown]> = {
    name: ['name', v.name.trim()],
    models: ['models', list.length ? list : null],
    quota: ['quota', quota],
    rpm: ['rpm_limit', int(v.rpm)],
    tpm: ['tpm_limit', int(v.tpm)],
    concurrency: ['concurrency_limit', int(v.concurrency)],
    expires: ['expires_at', v.expires ? (fromLocalInput(v.expires) ?? null) : null],
    day: ['budgets', budgets],
    week: ['budgets', budgets],
    month: ['budgets', budgets],
    account: ['account_id', v.account || null],
  };
  return Object.fromEntries(send.map((k) => all[k]));
}

/** The account picker: no account, or one of the live accounts (the token's own account stays listed when revoked). */
function AccountSelect({
  id,
  value,
  accounts,
  onChange,
}: {
  id: string;
  value: string;
  accounts: Account[];
  onChange: (v: string) => void;
}) {
  const shown = accounts.filter((a) => a.revoked_at === null || a.id === value);
  return (
    <div>
      <label for={id}>Account</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">No account</option>
        {value && !shown.some((a) => a.id === value) && <option value={value}>{value}</option>}
        {shown.map((a) => (
          <option key={a.id} value={a.id}>
            {plainName(a.name)} ({a.id}){a.revoked_at !== null ? ' — revoked' : ''}
          </option>
        ))}
      </select>
    </div>
  );
}

export function TokenForm({
  token,
  accounts,
  onCreated,
  onSaved,
  onCancel,
}: {
  token: Token | null;
  accounts: Account[];
  onCreated?: (c: CreatedToken) => void;
  onSaved?: (t: Token) => void;
  onCancel?: () => void;
}) {
  const initial = valuesOf(token);
  const [values, setValues] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const editing = token !== null;
  const prefix = editing ? 'edit' : 'tok';
  const title = `${prefix}-title`;
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setStatus(null);
    const keys: Key[] = [...FIELDS.map(([k]) => k), ...PERIODS, 'account'];
    // A creation sends what is filled in; an edit what differs from the token as shown.
    const send = editing ? keys.filter((k) => values[k] !== initial[k]) : keys.filter((k) => values[k].trim() !== '');
    if (editing && send.length === 0) return setStatus('Nothing changed');
    const body = bodyOf(values, send);
    if (typeof body === 'string') return setError(body);
    setBusy(true);
    try {
      if (editing) {
        // The owner shows that it was saved: the form is made again from the stored token.
        onSaved?.(await call<Token>(`/admin/tokens/${encodeURIComponent(token.id)}`, { method: 'PATCH', json: body }));
      } else {
        onCreated?.(await call<CreatedToken>('/admin/tokens', { method: 'POST', json: body }));
        setValues(valuesOf(null));
      }
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="form-grid" onSubmit={submit} aria-labelledby={title} data-write="tokens">
      {editing ? <h3 id={title}>Edit</h3> : <h2 id={title}>Create a token</h2>}
      {FIELDS.map(([k, label, attrs]) => (
        <div key={k}>
          <label for={`${prefix}-${k}`}>{label}</label>
          <input
            id={`${prefix}-${k}`}
            {...attrs}
            required={k === 'name'}
            value={values[k]}
            onInput={(e) => setValues({ ...values, [k]: e.currentTarget.value })}
          />
        </div>
      ))}
      <BudgetFields prefix={prefix} values={values} onInput={(p, v) => setValues({ ...values, [p]: v })} />
      <AccountSelect
        id={`${prefix}-account`}
        value={values.account}
        accounts={accounts}
        onChange={(account) => setValues({ ...values, account })}
      />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {editing ? 'Save' : 'Create token'}
        </button>
        {onCancel && (
          <button type="button" class="quiet" onClick={onCancel}>
            Cancel
          </button>
        )}
        <span role="status">{status}</span>
      </div>
    </form>
  );
}
