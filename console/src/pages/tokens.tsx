// Client tokens: search and filter, create (its secret and callback secret shown once), and for one token its usage
// (balance, spend per model), a top-up and an edit of quota, limits, models, expiry, budgets and account, its callback
// secret's rotation; rotate (the new secret shown once), revoke.
import { useState } from 'preact/hooks';
import { call, callAll } from '../api.ts';
import type { Account, CreatedToken, Token } from '../types.ts';
import { errorText, useLoad } from '../use-load.ts';
import { TokenForm } from './tokens/token-form.tsx';
import { TokenPanel } from './tokens/token-panel.tsx';
import { stateOf, TokenTable, type TokenState } from './tokens/token-table.tsx';
import { Name } from '../name.tsx';
import { SecretValue, useInView } from '../shown-secret.tsx';

/** What was just shown once: a new token's secret and callback secret, or a rotated token's new secret. */
interface Shown {
  name: string;
  token: string;
  callbackSecret?: string;
}

/** Beside the form or the list that made it, scrolled into view and focused, with copy buttons. */
function SecretCard({ shown, onDone }: { shown: Shown; onDone: () => void }) {
  const card = useInView<HTMLElement>(shown);
  return (
    <section class="card secret" ref={card} tabIndex={-1} aria-labelledby="new-secret-title">
      <h2 id="new-secret-title">
        Secret of token “<Name value={shown.name} />”
      </h2>
      <p>Copy it now: it is shown only this once and is stored hashed.</p>
      <SecretValue id="new-secret" value={shown.token} />
      {shown.callbackSecret && (
        <>
          <p>
            Its callback secret: the client verifies its task callbacks with it (Standard Webhooks). Shown only this
            once too.
          </p>
          <SecretValue id="new-callback-secret" value={shown.callbackSecret} copyLabel="Copy callback secret" />
        </>
      )}
      <div class="actions">
        <button type="button" class="quiet" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}

export function Tokens() {
  const tokens = useLoad(() => callAll<Token>('/admin/tokens'), []);
  // The accounts a token may join (the forms' picker) and their names in the list.
  const accounts = useLoad(() => callAll<Account>('/admin/accounts'), []);
  const accountList = accounts.data ?? [];
  const [search, setSearch] = useState('');
  const [only, setOnly] = useState<TokenState | ''>('');
  const [created, setCreated] = useState<Shown | null>(null);
  const [openId, setOpenId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const rotate = async (t: Token) => {
    setError(null);
    try {
      const r = await call<Token & { token: string }>(`/admin/tokens/${encodeURIComponent(t.id)}/rotate`, {
        method: 'POST',
        json: {},
      });
      setCreated({ name: r.name, token: r.token });
      tokens.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const all = tokens.data ?? [];
  const q = search.trim().toLowerCase();
  const now = Date.now();
  const shown = all.filter(
    (t) =>
      (!only || stateOf(t, now) === only) &&
      (!q ||
        t.name.toLowerCase().includes(q) ||
        t.id.toLowerCase().includes(q) ||
        t.prefix.toLowerCase().startsWith(q)),
  );
  const open = all.find((t) => t.id === openId) ?? null;
  return (
    <section>
      <h1 tabIndex={-1}>Tokens</h1>
      {open ? (
        <TokenPanel
          token={open}
          accounts={accountList}
          onChanged={tokens.reload}
          onClose={() => {
            setOpenId(null);
            // Back to the button that opened it, for keyboard users.
            requestAnimationFrame(() =>
              document.querySelector<HTMLElement>(`tr[data-token-id="${CSS.escape(open.id)}"] button`)?.focus(),
            );
          }}
        />
      ) : (
        <div class="card" data-write="tokens">
          <TokenForm
            token={null}
            accounts={accountList}
            onCreated={(c: CreatedToken) => {
              setCreated({ name: c.name, token: c.token, callbackSecret: c.callback_secret });
              tokens.reload();
            }}
          />
        </div>
      )}
      {/* Below the form that created it (or above the list where it was rotated), where the operator looks. */}
      {created && <SecretCard shown={created} onDone={() => setCreated(null)} />}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="toolbar">
        <label for="tok-search">Search tokens</label>
        <input
          id="tok-search"
          type="search"
          placeholder="name, id or prefix"
          value={search}
          onInput={(e) => setSearch(e.currentTarget.value)}
        />
        <label for="tok-state">State</label>
        <select id="tok-state" value={only} onChange={(e) => setOnly(e.currentTarget.value as TokenState | '')}>
          <option value="">Any</option>
          <option value="active">Active</option>
          <option value="expired">Expired</option>
          <option value="revoked">Revoked</option>
        </select>
      </div>
      {tokens.error && (
        <p role="alert" class="error">
          {tokens.error}
        </p>
      )}
      {accounts.error && (
        <p role="alert" class="error">
          {accounts.error}
        </p>
      )}
      <TokenTable
        tokens={shown}
        accountNames={new Map(accountList.map((a) => [a.id, a.name]))}
        caption={tokens.loading && !tokens.data ? 'Loading tokens…' : `${shown.length} of ${all.length} tokens`}
        actions={{ open: (t) => setOpenId(t.id), rotate: (t) => void rotate(t), changed: tokens.reload }}
      />
    </section>
  );
}
