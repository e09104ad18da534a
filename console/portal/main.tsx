// The Tollway customer portal: a member signs in with their member key, then sees their own account's usage, bills,
// request log and tokens, redeems credit and rotates their key. It shares the console's styles and helpers.
import '../src/app.css';
import '../src/pages/sso.css';
import './portal.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useRoute } from '../src/router.ts';
import { labelTablesWithin } from '../src/table-cards.ts';
import { currentSession, signIn, signOut, whenSignedOut, type PortalSession } from './api.ts';
import { CreditPage } from './account.tsx';
import { errorText } from './load.ts';
import { BillsPage, LogsPage } from './reports.tsx';
import { TokensPage } from './tokens.tsx';
import { UsagePage } from './usage.tsx';

const PAGES = [
  ['overview', 'Usage'],
  ['tokens', 'Tokens'],
  ['bills', 'Bills'],
  ['logs', 'Request log'],
  ['credit', 'Credit and key'],
] as const;

function SignIn({ onSignedIn }: { onSignedIn: (s: PortalSession) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  // The console's single sign-on issuer signs members in too (by their e-mail); without it, the key form alone.
  const [sso, setSso] = useState<{ enabled: boolean; name?: string }>({ enabled: false });
  useEffect(() => {
    fetch('/console/sso')
      .then((r) => (r.ok ? (r.json() as Promise<{ enabled: boolean; name?: string }>) : { enabled: false }))
      .then(setSso, () => undefined);
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const s = await signIn(key);
      setKey('');
      onSignedIn(s);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <main class="signin">
      <form onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Tollway portal</h1>
        <p>
          Sign in with your member key (twm-…). It is exchanged for a session cookie and not stored in this browser.
        </p>
        {sso.enabled && (
          <>
            <a class="sso" id="sso-start" href="/portal/sso/start">
              Sign in with {sso.name}
            </a>
            <p class="sso-or">or with a member key:</p>
          </>
        )}
        <label for="member-key">Member key</label>
        <input
          id="member-key"
          type="password"
          autoComplete="current-password"
          required
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
        />
        {error && (
          <p role="alert" class="error" id="signin-error">
            {error}
          </p>
        )}
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}

function Page({ session }: { session: PortalSession }) {
  const route = useRoute();
  useEffect(() => {
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [route.page]);
  switch (route.page) {
    case 'tokens':
      return <TokensPage session={session} />;
    case 'bills':
      return <BillsPage session={session} />;
    case 'logs':
      return <LogsPage session={session} />;
    case 'credit':
      return <CreditPage session={session} />;
    default:
      return <UsagePage session={session} />;
  }
}

function Shell({ session, onSignOut }: { session: PortalSession; onSignOut: () => void }) {
  const route = useRoute();
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <header class="bar">
        <span class="brand">Tollway</span>
        <nav aria-label="Portal pages">
          <ul>
            {PAGES.map(([id, label]) => (
              <li key={id}>
                <a href={`#/${id}`} aria-current={route.page === id ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="muted" id="signed-in-as">
          {session.member.name} · {session.account.name}
        </span>
        <button type="button" class="quiet" onClick={() => signOut().then(onSignOut, (e) => setError(errorText(e)))}>
          Sign out
        </button>
      </header>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <main id="main" tabIndex={-1}>
        <Page session={session} />
      </main>
    </>
  );
}

function App() {
  const [session, setSession] = useState<PortalSession | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    whenSignedOut(() => setSession(null));
    currentSession().then(setSession, (e: unknown) => setError(errorText(e)));
  }, []);
  if (error)
    return (
      <p role="alert" class="error">
        The portal could not reach the gateway: {error}
      </p>
    );
  if (session === undefined) return <p class="boot">Loading…</p>;
  if (session === null) return <SignIn onSignedIn={setSession} />;
  return <Shell session={session} onSignOut={() => setSession(null)} />;
}

const root = document.getElementById('app')!;
render(<App />, root);
labelTablesWithin(root);
