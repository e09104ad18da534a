// One person's personal keys: a new key, rotate one (the new key shown once, the old one stops at once), revoke one.
import { useState } from 'preact/hooks';
import { call } from '../../api.ts';
import { time } from '../../format.ts';
import type { CreatedStaffKey, Person, StaffKey } from '../../types.ts';
import { errorText, useLoad } from '../../use-load.ts';
import { Name } from '../../name.tsx';

export function UserKeys({
  person,
  onShown,
  onClose,
}: {
  person: Person;
  onShown: (k: CreatedStaffKey) => void;
  onClose: () => void;
}) {
  const base = `/admin/users/${encodeURIComponent(person.id)}`;
  const keys = useLoad(() => call<Person & { keys: StaffKey[] }>(base).then((p) => p.keys), [person.id]);
  const [days, setDays] = useState('90');
  const [error, setError] = useState<string | null>(null);
  const run = async (f: () => Promise<CreatedStaffKey | StaffKey>) => {
    setError(null);
    try {
      const k = await f();
      if ('secret' in k) onShown(k);
      keys.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const expiry = () => ({ expires_in_days: Number(days) });
  return (
    <section class="card" aria-labelledby="keys-title">
      <div class="actions">
        <h2 id="keys-title">
          Keys of “<Name value={person.name} />”
        </h2>
        <button type="button" class="quiet" onClick={onClose}>
          Close
        </button>
      </div>
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void run(() => call<CreatedStaffKey>(`${base}/keys`, { method: 'POST', json: expiry() }));
        }}
      >
        <label for="key-days">Expires in (days)</label>
        <input
          id="key-days"
          type="number"
          min={1}
          max={3650}
          value={days}
          onInput={(e) => setDays(e.currentTarget.value)}
        />
        <button type="submit" disabled={person.disabled}>
          New key
        </button>
      </form>
      {(error || keys.error) && (
        <p role="alert" class="error">
          {error ?? keys.error}
        </p>
      )}
      <table>
        <caption>{keys.data ? `${keys.data.length} keys` : 'Loading keys…'}</caption>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">State</th>
            <th scope="col">Expires</th>
            <th scope="col">Created</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(keys.data ?? []).map((k) => (
            <tr key={k.id} data-key-id={k.id}>
              <td>
                <code>{k.prefix}…</code> {k.name && <Name value={k.name} />}
              </td>
              <td>
                <span class="pill">{k.state}</span>
              </td>
              <td>{time(k.expires_at)}</td>
              <td>{time(k.created_at)}</td>
              <td class="actions">
                {k.state !== 'revoked' && (
                  <>
                    <button
                      type="button"
                      class="quiet"
                      aria-label={`Rotate ${k.prefix}`}
                      onClick={() =>
                        void run(() =>
                          call<CreatedStaffKey>(`${base}/keys/${encodeURIComponent(k.id)}/rotate`, {
                            method: 'POST',
                            json: expiry(),
                          }),
                        )
                      }
                    >
                      Rotate
                    </button>
                    <button
                      type="button"
                      class="quiet"
                      aria-label={`Revoke ${k.prefix}`}
                      onClick={() =>
                        void run(() => call<StaffKey>(`${base}/keys/${encodeURIComponent(k.id)}`, { method: 'DELETE' }))
                      }
                    >
                      Revoke
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
