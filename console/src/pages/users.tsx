// Staff people (owners only): add a person with a role (their first key shown once), change a role, disable or
// enable, open one's keys; each links to the audit lines of their changes.
import { useState } from 'preact/hooks';
import { call, callAll } from '../api.ts';
import { time } from '../format.ts';
import type { CreatedStaffKey, Person, Role } from '../types.ts';
import { errorText, useLoad } from '../use-load.ts';
import { Name } from '../name.tsx';
import { ShownKey } from './users/shown-key.tsx';
import { UserKeys } from './users/user-keys.tsx';

const ROLES: Role[] = ['owner', 'admin', 'operator', 'billing', 'viewer'];

function NewPerson({ onCreated }: { onCreated: (p: Person & { key: CreatedStaffKey }) => void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const p = await call<Person & { key: CreatedStaffKey }>('/admin/users', {
        method: 'POST',
        json: { name, email, role },
      });
      setName('');
      setEmail('');
      onCreated(p);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card form-grid" onSubmit={submit} aria-labelledby="new-person-title" data-write="users">
      <h2 id="new-person-title">Add a person</h2>
      <label for="person-name">Name</label>
      <input id="person-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <label for="person-email">E-mail</label>
      <input
        id="person-email"
        type="email"
        required
        maxLength={320}
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
      />
      <label for="person-role">Role</label>
      <select id="person-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        Add person
      </button>
    </form>
  );
}

export function Users({ open }: { open: string | null }) {
  const people = useLoad(() => callAll<Person>('/admin/users'), []);
  const [shown, setShown] = useState<{ who: string; key: CreatedStaffKey } | null>(null);
  const [openId, setOpenId] = useState<string | null>(open);
  const [error, setError] = useState<string | null>(null);
  const patch = async (p: Person, json: { role?: Role; disabled?: boolean }) => {
    setError(null);
    try {
      await call(`/admin/users/${encodeURIComponent(p.id)}`, { method: 'PATCH', json });
      people.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const all = people.data ?? [];
  const opened = all.find((p) => p.id === openId) ?? null;
  return (
    <section>
      <h1 tabIndex={-1}>Users</h1>
      {shown && <ShownKey who={shown.who} shown={shown.key} onDone={() => setShown(null)} />}
      {opened ? (
        <UserKeys
          person={opened}
          onShown={(key) => setShown({ who: opened.name, key })}
          onClose={() => setOpenId(null)}
        />
      ) : (
        <NewPerson
          onCreated={(p) => {
            setShown({ who: p.name, key: p.key });
            people.reload();
          }}
        />
      )}
      {(error || people.error) && (
        <p role="alert" class="error">
          {error ?? people.error}
        </p>
      )}
      <table>
        <caption>{people.loading && !people.data ? 'Loading people…' : `${all.length} people`}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">E-mail</th>
            <th scope="col">Role</th>
            <th scope="col">State</th>
            <th scope="col">Added</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {all.map((p) => (
            <tr key={p.id} data-person-id={p.id}>
              <td>
                <Name value={p.name} />
              </td>
              <td>{p.email}</td>
              <td>
                <select
                  aria-label={`Role of ${p.email}`}
                  value={p.role}
                  onChange={(e) => void patch(p, { role: e.currentTarget.value as Role })}
                >
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
              </td>
              <td>
                <span class="pill">{p.disabled ? 'disabled' : 'active'}</span>
              </td>
              <td>{time(p.created_at)}</td>
              <td class="actions">
                <button type="button" class="quiet" onClick={() => setOpenId(p.id)} aria-label={`Keys of ${p.email}`}>
                  Keys
                </button>
                <button
                  type="button"
                  class="quiet"
                  onClick={() => void patch(p, { disabled: !p.disabled })}
                  aria-label={`${p.disabled ? 'Enable' : 'Disable'} ${p.email}`}
                >
                  {p.disabled ? 'Enable' : 'Disable'}
                </button>
                <a href={`#/audit?person=${encodeURIComponent(p.id)}`}>Audit</a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
