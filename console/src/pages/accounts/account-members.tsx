// The members of an account, who sign in to the customer portal (/portal): issue one (their member key shown once,
// with a copy button), and revoke one. Controls are marked with the accounts area (hidden from a role that may not).
import { useState } from 'preact/hooks';
import { call } from '../../api.ts';
import { ConfirmButton } from '../../confirm-button.tsx';
import { time } from '../../format.ts';
import { Name } from '../../name.tsx';
import { errorText, useLoad } from '../../use-load.ts';

interface Member {
  id: string;
  name: string;
  email: string;
  revoked_at: number | null;
  created_at: number;
  keys?: Array<{ prefix: string; state: string; expires_at: number }>;
}

export function AccountMembers({ accountId, live }: { accountId: string; live: boolean }) {
  const path = `/admin/accounts/${encodeURIComponent(accountId)}/members`;
  const list = useLoad(() => call<{ data: Member[] }>(path), [path]);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [shown, setShown] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const issue = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const m = await call<{ key: { secret: string } }>(path, { method: 'POST', json: { name, email } });
      setShown(m.key.secret);
      setName('');
      setEmail('');
      list.reload();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <section aria-labelledby="members-title">
      <h3 id="members-title">Portal members</h3>
      {shown && (
        <div class="card secret" role="status">
          <p>The member key, shown only this once: the member signs in at /portal with it.</p>
          <code id="new-member-key" class="wrap">
            {shown}
          </code>{' '}
          <button type="button" onClick={() => void navigator.clipboard?.writeText(shown)}>
            Copy key
          </button>{' '}
          <button type="button" class="quiet" onClick={() => setShown(null)}>
            Done
          </button>
        </div>
      )}
      {list.error && <p class="error">{list.error}</p>}
      <div class="table-wrap">
        <table id="account-members">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">E-mail</th>
              <th scope="col">Key</th>
              <th scope="col">Since</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.data ?? []).map((m) => (
              <tr key={m.id}>
                <th scope="row">
                  <Name value={m.name} />
                </th>
                <td>{m.email}</td>
                <td>
                  {m.revoked_at !== null
                    ? 'revoked'
                    : ((m.keys ?? [])
                        .filter((k) => k.state === 'live')
                        .map((k) => `${k.prefix}… until ${time(k.expires_at)}`)[0] ?? 'no live key')}
                </td>
                <td>{time(m.created_at)}</td>
                <td>
                  {m.revoked_at === null && (
                    <ConfirmButton
                      label="Revoke member"
                      write="accounts"
                      confirm="Confirm revoking member"
                      name={m.name}
                      run={() => call(`${path}/${encodeURIComponent(m.id)}`, { method: 'DELETE' })}
                      onDone={list.reload}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {live && (
        <form class="inline" onSubmit={issue} data-write="accounts" aria-label="Issue a portal member">
          <label for="member-name">Member name</label>
          <input
            id="member-name"
            required
            maxLength={200}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <label for="member-email">Member e-mail</label>
          <input
            id="member-email"
            type="email"
            required
            maxLength={320}
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
          <button type="submit">Issue member</button>
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
        </form>
      )}
    </section>
  );
}
