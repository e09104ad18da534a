import { useEffect, useState } from 'preact/hooks';
import { signIn, ssoInfo, type SessionInfo, type SsoInfo } from '../api.ts';
import { errorText } from '../use-load.ts';
import './sso.css';

export function SignIn({ onSignedIn }: { onSignedIn: (s: SessionInfo) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [sso, setSso] = useState<SsoInfo>({ enabled: false });
  useEffect(() => {
    // Without an answer the page keeps the key form alone.
    ssoInfo().then(setSso, () => undefined);
  }, []);
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
        {sso.enabled && (
          <>
            {/* A whole-page navigation: the issuer's sign-in is a page of its own. */}
            <a class="sso" id="sso-start" href={sso.start_url}>
              Sign in with {sso.name}
            </a>
            <p class="sso-or">or with a key:</p>
          </>
        )}
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
