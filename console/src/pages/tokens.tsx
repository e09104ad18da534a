// Client tokens: search, create (the secret shown once), edit quota / models / limit, rotate (the new secret shown
// once), revoke; quota, spend and model allow-list per token.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { num, time, units } from '../format.ts';
import { errorText, useLoad } from '../use-load.ts';

export interface Token {
  id: string;
  name: string;
  prefix: string;
  models: string[] | null;
  quota: number | null;
  spent: number;
  held: number;
  rpm_limit: number | null;
  tpm_limit: number | null;
  concurrency_limit: number | null;
  expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
}

interface Created {
  id: string;
  name: string;
  token: string;
}

const state = (t: Token) => (t.revoked_at !== null ? 'revoked' : t.expires_at !== null && t.expires_at <= Date.now() ? 'expired' : 'active');

function CreateForm({ onCreated }: { onCreated: (c: Created) => void }) {
  const [name, setName] = useState('');
  const [models, setModels] = useState('');
  const [quota, setQuota] = useState('');
  const [rpm, setRpm] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const list = models.split(',').map((m) => m.trim()).filter(Boolean);
    const body: Record<string, unknown> = { name: name.trim() };
    if (list.length) body.models = list;
    // Entered in units, stored in micro-units (exact for up to six decimals).
    if (quota.trim()) body.quota = Math.round(Number(quota) * 1_000_000);
    if (rpm.trim()) body.rpm_limit = Number(rpm);
    try {
      onCreated(await call<Created>('/admin/tokens', { method: 'POST', json: body }));
      setName('');
      setModels('');
      setQuota('');
      setRpm('');
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="card form-grid" onSubmit={submit} aria-labelledby="create-title">
      <h2 id="create-title">Create a token</h2>
      <label for="tok-name">Name</label>
      <input id="tok-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <label for="tok-models">Models (comma-separated; empty = all)</label>
      <input id="tok-models" value={models} onInput={(e) => setModels(e.currentTarget.value)} />
      <label for="tok-quota">Quota in units (empty = unlimited)</label>
      <input id="tok-quota" type="number" min="0" step="0.000001" value={quota} onInput={(e) => setQuota(e.currentTarget.value)} />
      <label for="tok-rpm">Requests per minute (empty = no limit)</label>
      <input id="tok-rpm" type="number" min="1" step="1" value={rpm} onInput={(e) => setRpm(e.currentTarget.value)} />
      {error && <p role="alert" class="error">{error}</p>}
      <button type="submit">Create token</button>
    </form>
  );
}

function EditForm({ token, onDone }: { token: Token; onDone: () => void }) {
  const [models, setModels] = useState(token.models ? token.models.join(', ') : '');
  const [quota, setQuota] = useState(token.quota === null ? '' : String(token.quota / 1_000_000));
  const [rpm, setRpm] = useState(token.rpm_limit === null ? '' : String(token.rpm_limit));
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const list = models.split(',').map((m) => m.trim()).filter(Boolean);
    const body = { models: list.length ? list : null, quota: quota.trim() ? Math.round(Number(quota) * 1_000_000) : null, rpm_limit: rpm.trim() ? Number(rpm) : null };
    try {
      await call(`/admin/tokens/${encodeURIComponent(token.id)}`, { method: 'PATCH', json: body });
      onDone();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="card form-grid" onSubmit={submit} aria-labelledby="edit-title">
      <h2 id="edit-title">Edit “{token.name}”</h2>
      <label for="edit-models">Models (comma-separated; empty = all)</label>
      <input id="edit-models" value={models} onInput={(e) => setModels(e.currentTarget.value)} />
      <label for="edit-quota">Quota in units (empty = unlimited)</label>
      <input id="edit-quota" type="number" min="0" step="0.000001" value={quota} onInput={(e) => setQuota(e.currentTarget.value)} />
      <label for="edit-rpm">Requests per minute (empty = no limit)</label>
      <input id="edit-rpm" type="number" min="1" step="1" value={rpm} onInput={(e) => setRpm(e.currentTarget.value)} />
      {error && <p role="alert" class="error">{error}</p>}
      <div class="actions">
        <button type="submit">Save</button>
        <button type="button" class="quiet" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function RevokeButton({ token, onDone }: { token: Token; onDone: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (token.revoked_at !== null) return <span class="muted">revoked {time(token.revoked_at)}</span>;
  const revoke = async () => {
    try {
      await call(`/admin/tokens/${encodeURIComponent(token.id)}`, { method: 'DELETE' });
      onDone();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <span class="actions">
      {confirming ? (
        <>
          <button type="button" class="danger" onClick={revoke} aria-label={`Confirm revoking ${token.name}`}>
            Confirm revoke
          </button>
          <button type="button" class="quiet" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </>
      ) : (
        <button type="button" class="quiet" onClick={() => setConfirming(true)} aria-label={`Revoke ${token.name}`}>
          Revoke
        </button>
      )}
      {error && <span role="alert" class="error">{error}</span>}
    </span>
  );
}

export function Tokens() {
  const tokens = useLoad(() => call<{ data: Token[] }>('/admin/tokens').then((r) => r.data), []);
  const [search, setSearch] = useState('');
  const [created, setCreated] = useState<Created | null>(null);
  const [editing, setEditing] = useState<Token | null>(null);
  const [error, setError] = useState<string | null>(null);
  const rotate = async (t: Token) => {
    setError(null);
    try {
      setCreated(await call<Created>(`/admin/tokens/${encodeURIComponent(t.id)}/rotate`, { method: 'POST', json: {} }));
      tokens.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const q = search.trim().toLowerCase();
  const shown = (tokens.data ?? []).filter((t) => !q || t.name.toLowerCase().includes(q) || t.id.toLowerCase().includes(q) || t.prefix.toLowerCase().startsWith(q));
  return (
    <section>
      <h1 tabIndex={-1}>Tokens</h1>
      {created && (
        <div class="card secret" role="status">
          <h2>Secret of token “{created.name}”</h2>
          <p>Copy its secret now: it is shown only this once and is stored hashed.</p>
          <code id="new-secret" class="wrap">
            {created.token}
          </code>
          <div class="actions">
            <button type="button" onClick={() => void navigator.clipboard?.writeText(created.token)}>
              Copy
            </button>
            <button type="button" class="quiet" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      )}
      {editing ? (
        <EditForm
          key={editing.id}
          token={editing}
          onDone={() => {
            setEditing(null);
            tokens.reload();
          }}
        />
      ) : (
        <CreateForm
          onCreated={(c) => {
            setCreated(c);
            tokens.reload();
          }}
        />
      )}
      {error && <p role="alert" class="error">{error}</p>}
      <div class="toolbar">
        <label for="tok-search">Search tokens</label>
        <input id="tok-search" type="search" placeholder="name, id or prefix" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
      </div>
      {tokens.error && <p role="alert" class="error">{tokens.error}</p>}
      <div class="table-wrap">
        <table>
          <caption>{tokens.loading && !tokens.data ? 'Loading tokens…' : `${shown.length} of ${tokens.data?.length ?? 0} tokens`}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Id / prefix</th>
              <th scope="col">State</th>
              <th scope="col">Models</th>
              <th scope="col" class="num">Spent</th>
              <th scope="col" class="num">Quota</th>
              <th scope="col" class="num">RPM</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((t) => (
              <tr key={t.id} data-token-id={t.id}>
                <th scope="row">{t.name}</th>
                <td>
                  <code>{t.id}</code>
                  <br />
                  <code>{t.prefix}…</code>
                </td>
                <td>
                  <span class={`pill ${state(t)}`}>{state(t)}</span>
                </td>
                <td>{t.models ? t.models.join(', ') : 'all'}</td>
                <td class="num">{units(t.spent)}</td>
                <td class="num">{t.quota === null ? 'unlimited' : units(t.quota)}</td>
                <td class="num">{num(t.rpm_limit)}</td>
                <td>{time(t.created_at)}</td>
                <td>
                  <span class="actions">
                    <a href={`#/logs?token_id=${encodeURIComponent(t.id)}`}>Requests</a>
                    {t.revoked_at === null && (
                      <>
                        <button type="button" class="quiet" onClick={() => setEditing(t)} aria-label={`Edit ${t.name}`}>
                          Edit
                        </button>
                        <button type="button" class="quiet" onClick={() => void rotate(t)} aria-label={`Rotate ${t.name}`}>
                          Rotate
                        </button>
                      </>
                    )}
                    <RevokeButton token={t} onDone={tokens.reload} />
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
