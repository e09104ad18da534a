// A channel's stated upstream limits (`model_limits`): one row per public model name, or "*" for every model the
// channel serves, each with any of rpm, tpm and concurrency. Saved with PATCH /admin/channels/{id}; the server checks
// them (an error names the row), and an empty form clears them. Channels naming one account share the smallest value.
import { useState } from 'preact/hooks';
import { call } from '../../api.ts';
import { errorText } from '../../use-load.ts';

const KINDS = ['rpm', 'tpm', 'concurrency'] as const;
type Kind = (typeof KINDS)[number];
export type ModelLimits = Record<string, Partial<Record<Kind, number>>>;
type Row = { model: string } & Record<Kind, string>;

const LABEL: Record<Kind, string> = { rpm: 'Requests a minute', tpm: 'Tokens a minute', concurrency: 'At once' };

function rowsOf(limits: ModelLimits | null): Row[] {
  const rows = Object.entries(limits ?? {}).map(([model, l]) => ({
    model,
    rpm: l.rpm?.toString() ?? '',
    tpm: l.tpm?.toString() ?? '',
    concurrency: l.concurrency?.toString() ?? '',
  }));
  return rows.length > 0 ? rows : [{ model: '*', rpm: '', tpm: '', concurrency: '' }];
}

/** The rows as the API takes them: blank cells left out, a row with no number dropped; nothing left is null. */
function limitsOf(rows: readonly Row[]): ModelLimits | null | string {
  const out: ModelLimits = {};
  for (const r of rows) {
    const one: Partial<Record<Kind, number>> = {};
    for (const k of KINDS) {
      const v = r[k].trim();
      if (v === '') continue;
      if (!/^\d+$/.test(v) || Number(v) < 1)
        return `${r.model || 'a row'}: ${LABEL[k].toLowerCase()} must be a positive whole number`;
      one[k] = Number(v);
    }
    if (Object.keys(one).length === 0) continue;
    if (r.model.trim() === '') return 'Each row with a limit needs a model name, or * for every model';
    out[r.model.trim()] = one;
  }
  return Object.keys(out).length > 0 ? out : null;
}

export function LimitsForm(props: { id: string; name: string; limits: ModelLimits | null; onDone: () => void }) {
  const [rows, setRows] = useState<Row[]>(() => rowsOf(props.limits));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const set = (i: number, k: keyof Row, v: string) =>
    setRows((rs) => rs.map((r, j) => (j === i ? { ...r, [k]: v } : r)));
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const limits = limitsOf(rows);
    if (typeof limits === 'string') return setError(limits);
    setBusy(true);
    try {
      await call(`/admin/channels/${encodeURIComponent(props.id)}`, {
        method: 'PATCH',
        json: { model_limits: limits },
      });
      props.onDone();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form data-write="upstream-keys" onSubmit={(e) => void submit(e)} aria-label={`Upstream limits of ${props.name}`}>
      <h3>Upstream limits of {props.name}</h3>
      <p class="muted">
        Per public model name, or * for every model the channel serves. Blank: not stated (read or learnt).
      </p>
      {rows.map((r, i) => (
        <fieldset key={i} class="price-fields">
          <legend>{r.model.trim() === '*' ? 'Every model' : r.model.trim() || 'New model'}</legend>
          <label>
            Model
            <input value={r.model} onInput={(e) => set(i, 'model', e.currentTarget.value)} />
          </label>
          {KINDS.map((k) => (
            <label key={k}>
              {LABEL[k]}
              <input inputMode="numeric" value={r[k]} onInput={(e) => set(i, k, e.currentTarget.value)} />
            </label>
          ))}
          <button type="button" class="quiet" onClick={() => setRows((rs) => rs.filter((_, j) => j !== i))}>
            Remove row
          </button>
        </fieldset>
      ))}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <span class="actions">
        <button
          type="button"
          class="quiet"
          onClick={() => setRows((rs) => [...rs, { model: '', rpm: '', tpm: '', concurrency: '' }])}
        >
          Add a model
        </button>
        <button type="submit" disabled={busy}>
          Save limits
        </button>
        <button type="button" class="quiet" onClick={props.onDone}>
          Cancel
        </button>
      </span>
    </form>
  );
}
