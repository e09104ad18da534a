// The Tollway operator console: sign-in, then the pages behind the navigation bar.
import 'uplot/dist/uPlot.min.css';
import './app.css';
import './access.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { bySso, currentSession, signOut, whenSignedOut, type SessionInfo } from './api.ts';
import { useRoute } from './router.ts';
import { SignIn } from './pages/sign-in.tsx';
import { Overview } from './pages/overview.tsx';
import { Tokens } from './pages/tokens.tsx';
import { Accounts } from './pages/accounts.tsx';
import { Logs } from './pages/logs.tsx';
import { LogDetail } from './pages/log-detail.tsx';
import { Channels } from './pages/channels.tsx';
import { Prices } from './pages/prices.tsx';
import { PriceDetail } from './pages/price-detail.tsx';
import { Bills } from './pages/bills.tsx';
import { Tasks } from './pages/tasks.tsx';
import { TaskDetail } from './pages/task-detail.tsx';
import { Webhooks } from './pages/webhooks.tsx';
import { Credit } from './pages/credit.tsx';
import { Users } from './pages/users.tsx';
import { Audit } from './pages/audit.tsx';
import { PriceGroups } from './pages/price-groups.tsx';
import { PriceGroupDetail } from './pages/price-groups/group-edit.tsx';
import { Reconcile } from './pages/reconcile.tsx';
import { errorText } from './use-load.ts';
import { AccessContext, hiddenWrites } from './access.ts';
import { labelTablesWithin } from './table-cards.ts';

const PAGES = [
  ['overview', 'Overview'],
  ['tokens', 'Tokens'],
  ['accounts', 'Accounts'],
  ['logs', 'Request log'],
  ['tasks', 'Tasks'],
  ['channels', 'Channels'],
  ['prices', 'Prices'],
  ['price-groups', 'Price groups'],
  ['bills', 'Bills'],
  ['reconcile', 'Reconciliation'],
  ['credit', 'Credit'],
  ['webhooks', 'Webhooks'],
  ['audit', 'Audit'],
  ['users', 'Users'],
] as const;

function Page() {
  const route = useRoute();
  useEffect(() => {
    // Each page change moves focus to the page's heading, so keyboard and screen-reader users land on it.
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [route.page, route.arg]);
  switch (route.page) {
    case 'tokens':
      return <Tokens />;
    case 'accounts':
      return <Accounts open={route.arg} />;
    case 'logs':
      // Keyed by the query: a new filter (a link, Back/Forward) is a new list — its pages, cursors and form start over.
      return route.arg ? (
        <LogDetail requestId={route.arg} />
      ) : (
        <Logs key={route.query.toString()} query={route.query} />
      );
    case 'tasks':
      return route.arg ? <TaskDetail taskId={route.arg} /> : <Tasks />;
    case 'channels':
      return <Channels />;
    case 'prices':
      return route.arg ? <PriceDetail model={route.arg} /> : <Prices />;
    case 'price-groups':
      return route.arg ? <PriceGroupDetail name={route.arg} /> : <PriceGroups />;
    case 'reconcile':
      return <Reconcile />;
    case 'bills':
      return <Bills key={route.query.toString()} query={route.query} />;
    case 'credit':
      return <Credit open={route.arg} />;
    case 'webhooks':
      return <Webhooks open={route.arg} />;
    case 'audit':
      return <Audit key={route.query.toString()} query={route.query} />;
    case 'users':
      return <Users open={route.arg} />;
    case 'overview':
      return <Overview />;
    default:
      return (
        <section>
          <h1 tabIndex={-1}>Not found</h1>
          <p>
            There is no console page <code>{route.page}</code>. <a href="#/overview">Go to the overview</a>.
          </p>
        </section>
      );
  }
}

function Shell({ session, onSignOut }: { session: SessionInfo; onSignOut: () => void }) {
  const route = useRoute();
  // The Users page only for a role that may see the staff list.
  const pages = PAGES.filter(([id]) => id !== 'users' || session.access.users !== 'none');
  const [error, setError] = useState<string | null>(null);
  // After single sign-on, signing out goes on to the issuer's own sign-out (when it has one), then back here.
  const out = () =>
    signOut().then(
      () => (bySso(session) ? window.location.assign('/console/sso/logout') : onSignOut()),
      (e: unknown) => setError(errorText(e)),
    );
  return (
    <>
      {/* biome-ignore lint/a11y/useValidAnchor: the console routes by the hash, so following #main would leave the page; the click moves focus there instead */}
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="bar">
        <span class="brand">Tollway</span>
        <nav aria-label="Console pages">
          <ul>
            {pages.map(([id, label]) => (
              <li key={id}>
                <a href={`#/${id}`} aria-current={route.page === id ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="muted" id="signed-in-as">
          {session.person ? session.person.name : 'Admin key'} · {session.role}
        </span>
        <button type="button" class="quiet" onClick={out}>
          Sign out
        </button>
      </header>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <main id="main" tabIndex={-1} data-nowrite={hiddenWrites(session.access)}>
        <AccessContext.Provider value={session.access}>
          <Page />
        </AccessContext.Provider>
      </main>
    </>
  );
}

function App() {
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    whenSignedOut(() => setSession(null));
    currentSession().then(setSession, (e: unknown) => setError(errorText(e)));
  }, []);
  if (error)
    return (
      <p role="alert" class="error">
        The console could not reach the gateway: {error}
      </p>
    );
  if (session === undefined) return <p class="boot">Loading…</p>;
  if (session === null) return <SignIn onSignedIn={setSession} />;
  return <Shell session={session} onSignOut={() => setSession(null)} />;
}

const root = document.getElementById('app')!;
render(<App />, root);
labelTablesWithin(root);
