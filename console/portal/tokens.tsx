// The account's tokens: create one (its secret and callback secret shown once, with copy buttons), rotate, revoke,
// and read a token's callback secret.
import { useState } from 'preact/hooks';
import { parseUnits, time, units } from '../src/format.ts';
import { acct, call, type PortalSession } from './api.ts';
import { errorText, useLoad } from './load.ts';
import type { PortalToken } from './usage.tsx';

interface Shown {
  title: string;
  secret: string;
  callbackSecret?: string;
}

function Copy({ value, label }: { value: string; label: string }) {
  return (
    <button type="button" onClick={() => void navigator.clipboard?.writeText(value)}>
      {label}
    </button>
  );
}

function SecretCard({ shown, onDone }: { shown: Shown; onDone: () => void }) {
  return (
    <div class="card secret" role="status">
      <h2>{shown.title}</h2>
      <p>Copy it now: it is shown only this once and is stored hashed.</p>
      <code id="new-secret" class="wrap">
        {shown.secret}
      </code>{' '}
      <Copy value={shown.secret} label="Copy" />
      {shown.callbackSecret && (
        <>
          <p>Its callback secret (task callbacks are signed with it):</p>
          <code id="new-callback-secret" class="wrap">
            {shown.callbackSecret}
          </code>{' '}
          <Copy value={shown.callbackSecret} label="Copy callback secret" />
        </>
      )}
      <p>
        <button type="button" class="quiet" onClick={onDone}>
          Done
        </button>
      </p>
    </div>
  );
}

export function TokensPage({ session }: { session: PortalSession }) {
  const list = useLoad(() => call<{ data: PortalToken[] }>(acct(session, '/tokens')), [session.account.id]);
  const [shown, setShown] = useState<Shown | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [quota, setQuota] = useState('');
  const [models, setModels] = useState('');
  const [cb, setCb] = useState<{ id: string; secret: string | null } | null>(null);
  const act = async (f: () => Promise<void>) => {
    setError(null);
    try {
      await f();
      list.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const create = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      const q = quota.trim() === '' ? undefined : parseUnits(quota);
      if (q === null) throw new Error('Quota must be a number of units');
      const m = models
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const body = { name: name.trim(), ...(q !== undefined ? { quota: q } : {}), ...(m.length ? { models: m } : {}) };
      const c = await call<{ name: string; token: string; callback_secret: string }>(acct(session, '/tokens'), {
        method: 'POST',
        json: body,
      });
      setShown({ title: `Secret of token “${c.name}”`, secret: c.token, callbackSecret: c.callback_secret });
      setName('');
      setQuota('');
      setModels('');
    });
  };
  const path = (t: PortalToken, rest = '') => acct(session, `/tokens/${encodeURIComponent(t.id)}${rest}`);
  return (
    <section>
      <h1 tabIndex={-1}>Tokens</h1>
      {shown && <SecretCard shown={shown} onDone={() => setShown(null)} />}
      {error && (
        <p role="alert" class="error" id="tokens-error">
          {error}
        </p>
      )}
      <form class="card" onSubmit={create} aria-labelledby="new-token-title">
        <h2 id="new-token-title">New token</h2>
        <label for="token-name">Name</label>
        <input id="token-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="token-quota">Quota (units, optional)</label>
        <input id="token-quota" inputMode="decimal" value={quota} onInput={(e) => setQuota(e.currentTarget.value)} />
        <label for="token-models">Models (comma-separated, optional)</label>
        <input id="token-models" value={models} onInput={(e) => setModels(e.currentTarget.value)} />
        <button type="submit">Create token</button>
      </form>
      {list.error && (
        <p role="alert" class="error">
          {list.error}
        </p>
      )}
      <div class="scroll">
        <table id="token-list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Prefix</th>
              <th>Remaining</th>
              <th>Expires</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.data ?? []).map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td>
                <td>
                  <code>{t.prefix}…</code>
                </td>
                <td>{t.revoked_at !== null ? 'revoked' : t.remaining === null ? 'Unlimited' : units(t.remaining)}</td>
                <td>{time(t.expires_at)}</td>
                <td class="actions">
                  {t.revoked_at === null && (
                    <>
                      <button
                        type="button"
                        onClick={() =>
                          act(async () => {
                            const r = await call<{ token: string }>(path(t, '/rotate'), { method: 'POST' });
                            setShown({ title: `New secret of token “${t.name}”`, secret: r.token });
                          })
                        }
                      >
                        Rotate
                      </button>
                      <button
                        type="button"
                        onClick={() =>
                          act(async () => {
                            const r = await call<{ callback_secret: string | null }>(path(t, '/callback-secret'));
                            setCb({ id: t.id, secret: r.callback_secret });
                          })
                        }
                      >
                        Callback secret
                      </button>
                      <button
                        type="button"
                        class="danger"
                        onClick={() => confirm(`Revoke ${t.name}?`) && act(() => call(path(t), { method: 'DELETE' }))}
                      >
                        Revoke
                      </button>
                    </>
                  )}
                  {cb?.id === t.id && (
                    <p>
                      <code class="wrap">{cb.secret ?? 'none'}</code>
                    </p>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
