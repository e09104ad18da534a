// The audit log: every admin change, newest first, with the person and the key behind it; filtered by person (a
// person's "Audit" link on the Users page lands here) and by action.
import { useState } from 'preact/hooks';
import { call, callAll, qs } from '../api.ts';
import { useAccess } from '../access.ts';
import { time } from '../format.ts';
import { go } from '../router.ts';
import { Pager, usePaging } from '../pager.tsx';
import type { Person } from '../types.ts';
import { useLoad } from '../use-load.ts';
import { Name } from '../name.tsx';

interface AuditLine {
  id: number;
  at: number;
  actor: string;
  action: string;
  target: string | null;
  detail: Record<string, unknown> | null;
  request_id: string | null;
  person: { id: string; name: string | null } | null;
  key_id: string | null;
}

interface Page {
  data: AuditLine[];
  has_more: boolean;
  next_cursor?: string;
}

export function Audit({ query }: { query: URLSearchParams }) {
  const person = query.get('person') ?? '';
  const action = query.get('action') ?? '';
  const paging = usePaging();
  // Only an owner may read the staff list: others filter by a person's id.
  const seesPeople = useAccess('users') !== 'none';
  const people = useLoad(() => (seesPeople ? callAll<Person>('/admin/users') : Promise.resolve([])), [seesPeople]);
  const lines = useLoad(
    () => call<Page>(`/admin/audit${qs({ limit: 50, person, action, cursor: paging.cursor })}`),
    [person, action, paging.cursor],
  );
  const [who, setWho] = useState(person);
  const [what, setWhat] = useState(action);
  const submit = (e: Event) => {
    e.preventDefault();
    go(`#/audit${qs({ person: who.trim(), action: what.trim() })}`);
  };
  return (
    <section>
      <h1 tabIndex={-1}>Audit</h1>
      {/* biome-ignore lint/a11y/useSemanticElements: the <search> element is not in Preact's JSX types */}
      <form class="card filters" onSubmit={submit} role="search" aria-label="Filter the audit log">
        <label for="audit-person">Person</label>
        {seesPeople ? (
          <select id="audit-person" value={who} onChange={(e) => setWho(e.currentTarget.value)}>
            <option value="">Anyone</option>
            {(people.data ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} ({p.email})
              </option>
            ))}
          </select>
        ) : (
          <input id="audit-person" placeholder="usr_…" value={who} onInput={(e) => setWho(e.currentTarget.value)} />
        )}
        <label for="audit-action">Action</label>
        <input
          id="audit-action"
          placeholder="token.create"
          value={what}
          onInput={(e) => setWhat(e.currentTarget.value)}
        />
        <button type="submit">Filter</button>
      </form>
      {lines.error && (
        <p role="alert" class="error">
          {lines.error}
        </p>
      )}
      <table>
        <caption>{lines.data ? `${lines.data.data.length} changes on this page` : 'Loading the audit log…'}</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Person</th>
            <th scope="col">Key</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {(lines.data?.data ?? []).map((l) => (
            <tr key={l.id} data-audit-id={l.id}>
              <td>{time(l.at)}</td>
              <td>
                {l.person ? (
                  <a href={`#/audit${qs({ person: l.person.id })}`}>
                    <Name value={l.person.name ?? l.person.id} />
                  </a>
                ) : (
                  <span class="muted">{l.actor}</span>
                )}
              </td>
              <td>
                <code>{l.key_id ?? '—'}</code>
              </td>
              <td>{l.action}</td>
              <td>
                <code>{l.target ?? '—'}</code>
              </td>
              <td>
                <code class="wrap">{l.detail ? JSON.stringify(l.detail) : ''}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager paging={paging} hasMore={lines.data?.has_more ?? false} nextCursor={lines.data?.next_cursor} />
    </section>
  );
}
