// Add a channel, or edit one: its kind (on creation only) with the key fields that kind declares (GET
// /admin/channel-kinds), name, base URL, models, priority, weight and upstream account. Keys are write-only: the
// fields start empty, an edit sends only the keys typed (blank keeps the stored one), and the form is dropped after a
// save, so a key typed here is never shown back. An edit sends only the fields changed.
import './channel-form.css';
import { useState } from 'preact/hooks';
import { call } from '../../api.ts';
import { errorText } from '../../use-load.ts';
import type { ChannelKindView } from '../../../../src/core/admin/channel-kinds.ts';
import { bodyOf, type EditedChannel, type Text, textOf } from './channel-body.ts';

export function ChannelForm(props: {
  kinds: ChannelKindView[];
  /** null: a new channel. */
  channel: EditedChannel | null;
  onDone: () => void;
  onCancel: () => void;
}) {
  const editing = props.channel;
  const [kind, setKind] = useState(editing?.kind ?? props.kinds[0]?.kind ?? '');
  const [text, setText] = useState<Text>(() => textOf(editing));
  const [keys, setKeys] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const k = props.kinds.find((x) => x.kind === kind);
  const set = (f: keyof Text) => (e: { currentTarget: HTMLInputElement }) =>
    setText((t) => ({ ...t, [f]: e.currentTarget.value }));
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    if (!/^-?\d+$/.test(text.priority.trim()) || !/^\d+$/.test(text.weight.trim()))
      return setError('Priority and weight are whole numbers (weight at least 1)');
    const body = bodyOf(text, keys, editing, kind);
    if (editing && Object.keys(body).length === 0) return setError('Nothing changed');
    setBusy(true);
    try {
      await (editing
        ? call(`/admin/channels/${encodeURIComponent(editing.id)}`, { method: 'PATCH', json: body })
        : call('/admin/channels', { method: 'POST', json: body }));
      setKeys({});
      props.onDone();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const title = editing ? `Edit channel ${editing.name}` : 'Add a channel';
  return (
    <form
      class="card form-grid channel-form"
      id="channel-form"
      data-write="upstream-keys"
      onSubmit={(e) => void submit(e)}
      aria-labelledby="channel-form-title"
      noValidate
      autoComplete="off"
    >
      <h2 id="channel-form-title">{title}</h2>
      {editing ? (
        <p id="channel-kind">
          <strong>Kind:</strong> {kind}{' '}
          <span class="muted">(a channel's kind cannot change: add a channel of the other kind instead)</span>
        </p>
      ) : (
        <>
          <label for="channel-kind">Kind</label>
          <select
            id="channel-kind"
            value={kind}
            onChange={(e) => {
              setKind(e.currentTarget.value);
              setKeys({});
            }}
          >
            {props.kinds.map((x) => (
              <option key={x.kind} value={x.kind}>
                {x.kind}
              </option>
            ))}
          </select>
        </>
      )}
      <label for="channel-name">Name</label>
      <input id="channel-name" value={text.name} onInput={set('name')} required />
      {k && (
        <fieldset>
          <legend>Keys of a {k.kind} channel</legend>
          <p class="muted">
            Stored encrypted and never shown again.{' '}
            {editing ? 'Leave a key blank to keep the stored one.' : 'Every key is required.'}
          </p>
          {k.key_fields.map((f) => (
            <div key={`${k.kind}:${f.field}`}>
              <label for={`channel-key-${f.field}`}>{f.field}</label>
              <input
                id={`channel-key-${f.field}`}
                type="password"
                autoComplete="new-password"
                spellcheck={false}
                value={keys[f.field] ?? ''}
                placeholder={editing ? 'unchanged' : ''}
                onInput={(e) => {
                  const v = e.currentTarget.value;
                  setKeys((m) => ({ ...m, [f.field]: v }));
                }}
              />
            </div>
          ))}
        </fieldset>
      )}
      <label for="channel-base-url">Base URL</label>
      <input
        id="channel-base-url"
        inputMode="url"
        value={text.base_url}
        placeholder={k?.default_base_url ?? ''}
        onInput={set('base_url')}
      />
      <label for="channel-models">Models (comma-separated; empty: every model of its kind)</label>
      <input id="channel-models" value={text.models} onInput={set('models')} aria-describedby="channel-models-hint" />
      {k && (
        <p class="muted channel-models-hint" id="channel-models-hint">
          {k.kind} models: {k.models.join(', ')}
        </p>
      )}
      <div class="channel-numbers">
        <div>
          <label for="channel-priority">Priority</label>
          <input id="channel-priority" inputMode="numeric" value={text.priority} onInput={set('priority')} />
        </div>
        <div>
          <label for="channel-weight">Weight</label>
          <input id="channel-weight" inputMode="numeric" value={text.weight} onInput={set('weight')} />
        </div>
      </div>
      <label for="channel-account">Upstream account (channels naming one account share its limits)</label>
      <input id="channel-account" value={text.account} onInput={set('account')} />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {editing ? 'Save channel' : 'Add channel'}
        </button>
        <button type="button" class="quiet" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
