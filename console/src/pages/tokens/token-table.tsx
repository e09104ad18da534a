// The token list: state, models, spend, quota, limits and account per token, with its actions (usage and edit, rotate,
// revoke).
import { useState } from 'preact/hooks';
import { call } from '../../api.ts';
import { num, time, units } from '../../format.ts';
import type { Token } from '../../types.ts';
import { errorText } from '../../use-load.ts';
import { Name, plainName } from '../../name.tsx';
import { TokenQuota } from './token-quota.tsx';

export type TokenState = 'active' | 'expired' | 'revoked';

export const stateOf = (t: Token, now = Date.now()): TokenState =>
  t.revoked_at !== null ? 'revoked' : t.expires_at !== null && t.expires_at <= now ? 'expired' : 'active';

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
          <button
            type="button"
            class="danger"
            onClick={revoke}
            aria-label={`Confirm revoking ${plainName(token.name)}`}
          >
            Confirm revoke
          </button>
          <button type="button" class="quiet" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </>
      ) : (
        <button
          data-write="tokens"
          type="button"
          class="quiet"
          onClick={() => setConfirming(true)}
          aria-label={`Revoke ${plainName(token.name)}`}
        >
          Revoke
        </button>
      )}
      {error && (
        <span role="alert" class="error">
          {error}
        </span>
      )}
    </span>
  );
}

export interface TokenActions {
  open: (t: Token) => void;
  rotate: (t: Token) => void;
  changed: () => void;
}

export function TokenTable({
  tokens,
  caption,
  accountNames,
  actions,
}: {
  tokens: Token[];
  caption: string;
  accountNames: Map<string, string>;
  actions: TokenActions;
}) {
  return (
    <div class="table-wrap">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Id / prefix</th>
            <th scope="col">State</th>
            <th scope="col">Models</th>
            <th scope="col" class="num">
              Spent
            </th>
            <th scope="col" class="num">
              Quota
            </th>
            <th scope="col" class="num">
              RPM
            </th>
            <th scope="col">Created</th>
            <th scope="col">Account</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((t) => {
            const live = t.revoked_at === null;
            return (
              <tr key={t.id} data-token-id={t.id}>
                <th scope="row">
                  <Name value={t.name} />
                </th>
                <td>
                  <code>{t.id}</code>
                  <br />
                  <code>{t.prefix}…</code>
                </td>
                <td>
                  <span class={`pill ${stateOf(t)}`}>{stateOf(t)}</span>
                </td>
                <td>{t.models ? t.models.join(', ') : 'all'}</td>
                <td class="num">{units(t.spent)}</td>
                <td class="num">
                  <TokenQuota t={t} />
                </td>
                <td class="num">{num(t.rpm_limit)}</td>
                <td>{time(t.created_at)}</td>
                <td>
                  {t.account_id === null ? (
                    '—'
                  ) : (
                    <a href={`#/accounts/${encodeURIComponent(t.account_id)}`}>
                      <Name value={accountNames.get(t.account_id) ?? t.account_id} />
                    </a>
                  )}
                </td>
                <td>
                  <span class="actions">
                    {/* Usage, top-up and edit of the token open together, above the list. */}
                    <button
                      type="button"
                      class="quiet"
                      onClick={() => actions.open(t)}
                      aria-label={live ? `Usage & edit ${plainName(t.name)}` : `Usage of ${plainName(t.name)}`}
                    >
                      {live ? 'Usage & edit' : 'Usage'}
                    </button>
                    {live && (
                      <button
                        data-write="tokens"
                        type="button"
                        class="quiet"
                        onClick={() => actions.rotate(t)}
                        aria-label={`Rotate ${plainName(t.name)}`}
                      >
                        Rotate
                      </button>
                    )}
                    <a href={`#/logs?token_id=${encodeURIComponent(t.id)}`}>Requests</a>
                    <RevokeButton token={t} onDone={actions.changed} />
                  </span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
