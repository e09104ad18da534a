// Credit and the member's own key: redeem a code for the account; rotate the member key (the new one shown once).
import { useState } from 'preact/hooks';
import { time, units } from '../src/format.ts';
import { call, acct, type PortalSession } from './api.ts';
import { errorText } from './load.ts';

export function CreditPage({ session }: { session: PortalSession }) {
  const [code, setCode] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [newKey, setNewKey] = useState<{ secret: string; expires_at: number } | null>(null);
  const redeem = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setDone(null);
    try {
      const r = await call<{ amount: number }>(acct(session, '/redeem'), {
        method: 'POST',
        json: { code: code.trim() },
      });
      setDone(`${units(r.amount)} credited to ${session.account.name}`);
      setCode('');
    } catch (err) {
      setError(errorText(err));
    }
  };
  const rotate = async () => {
    setError(null);
    try {
      setNewKey(await call<{ secret: string; expires_at: number }>('/key/rotate', { method: 'POST' }));
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <section>
      <h1 tabIndex={-1}>Credit and key</h1>
      {error && (
        <p role="alert" class="error" id="credit-error">
          {error}
        </p>
      )}
      <form class="card" onSubmit={redeem} aria-labelledby="redeem-title">
        <h2 id="redeem-title">Redeem a code</h2>
        <label for="redeem-code">Code</label>
        <input id="redeem-code" required maxLength={100} value={code} onInput={(e) => setCode(e.currentTarget.value)} />
        <button type="submit">Redeem</button>
        {done && (
          <p role="status" id="redeem-done">
            {done}
          </p>
        )}
      </form>
      <div class="card">
        <h2>Your member key</h2>
        <p>
          {session.key ? (
            <>
              <code>{session.key.prefix}…</code>, expires {time(session.key.expires_at)}
            </>
          ) : (
            'Signed in without a key'
          )}
        </p>
        <button type="button" onClick={rotate}>
          Rotate my key
        </button>
        {newKey && (
          <div role="status" class="secret">
            <p>Your new key, shown only this once (the old one no longer works):</p>
            <code id="new-member-key" class="wrap">
              {newKey.secret}
            </code>{' '}
            <button type="button" onClick={() => void navigator.clipboard?.writeText(newKey.secret)}>
              Copy
            </button>
          </div>
        )}
      </div>
    </section>
  );
}
