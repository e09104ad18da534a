import { useState } from 'preact/hooks';
import { signIn, type SessionInfo } from '../api.ts';
import { errorText } from '../use-load.ts';

export function SignIn({ onSignedIn }: { onSignedIn: (s: SessionInfo) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const s = await signIn(key);
      // The key is not kept: only the HttpOnly cookie the server set stands for the session.
      setKey('');
      onSignedIn(s);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <form onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Tollway console</h1>
        <p>
          Sign in with your personal staff key (<code>tws-…</code>) or the gateway's admin key (TOLLWAY_ADMIN_KEY). It
          is exchanged for a session cookie and not stored in this browser.
        </p>
        <label for="admin-key">Admin key</label>
        <input
          id="admin-key"
          name="key"
          type="password"
          autoComplete="current-password"
          required
          // biome-ignore lint/a11y/noAutofocus: the page's only field; a keyboard user types the key at once
          autoFocus
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
        />
        {error && (
          <p role="alert" class="error" id="signin-error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
