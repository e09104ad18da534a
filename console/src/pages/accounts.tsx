// Customer accounts: the list a page at a time (oldest first, as the server pages it), create one, and for one
// account (#/accounts/<id>) its balance, budgets, spend, tokens, top-up, edit and revocation.
import { call, callAll, qs } from '../api.ts';
import { ConfirmButton } from '../confirm-button.tsx';
import { count, time, units } from '../format.ts';
import { Pager, usePaging } from '../pager.tsx';
import type { Account, Token } from '../types.ts';
import { useLoad } from '../use-load.ts';
import { AccountForm } from './accounts/account-form.tsx';
import { AccountPanel } from './accounts/account-panel.tsx';
import { Name, plainName } from '../name.tsx';

interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor?: string;
}

const stateOf = (a: Account, now = Date.now()) =>
  a.revoked_at !== null ? 'revoked' : a.expires_at !== null && a.expires_at <= now ? 'expired' : 'active';
const budgetText = (a: Account) =>
  a.budgets.length ? a.budgets.map((b) => `${b.period} ${units(b.limit)}`).join(', ') : '—';

export function Accounts({ open }: { open: string | null }) {
  const paging = usePaging();
  const list = useLoad(
    () => call<Page<Account>>(`/admin/accounts${qs({ limit: 50, cursor: paging.cursor })}`),
    [paging.cursor],
  );
  // The opened account is read on its own: it may be on another page of the list.
  const one = useLoad(
    () => (open ? call<Account>(`/admin/accounts/${encodeURIComponent(open)}`) : Promise.resolve(null)),
    [open],
  );
  const tokens = useLoad(() => (open ? callAll<Token>('/admin/tokens') : Promise.resolve([])), [open]);
  const groups = useLoad(() => call<{ data: Array<{ name: string }> }>('/admin/price-groups'), []);
  const groupNames = (groups.data?.data ?? []).map((g) => g.name);
  const changed = () => {
    list.reload();
    one.reload();
    tokens.reload();
  };
  const opened = one.data && one.data.id === open ? one.data : null;
  return (
    <section>
      <h1 tabIndex={-1}>Accounts</h1>
      {open && one.error && (
        <p role="alert" class="error">
          {one.error}
        </p>
      )}
      {opened ? (
        <AccountPanel
          account={opened}
          tokens={(tokens.data ?? []).filter((t) => t.account_id === opened.id)}
          groups={groupNames}
          onChanged={changed}
        />
      ) : (
        <div class="card" data-write="accounts">
          <AccountForm
            account={null}
            groups={groupNames}
            onCreated={(a) => {
              paging.reset();
              list.reload();
              location.hash = `#/accounts/${encodeURIComponent(a.id)}`;
            }}
          />
        </div>
      )}
      {(list.error || groups.error) && (
        <p role="alert" class="error">
          {list.error ?? groups.error}
        </p>
      )}
      <div class="table-wrap">
        <table id="accounts">
          <caption>
            {list.data ? `${count(list.data.data.length, 'account')} on this page` : 'Loading accounts…'}
          </caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">State</th>
              <th scope="col" class="num">
                Quota
              </th>
              <th scope="col" class="num">
                Spent
              </th>
              <th scope="col" class="num">
                Remaining
              </th>
              <th scope="col">Budgets</th>
              <th scope="col">Price group</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.data ?? []).map((a) => (
              <tr key={a.id} data-account-id={a.id}>
                <th scope="row">
                  <Name value={a.name} />
                  <br />
                  <code>{a.id}</code>
                </th>
                <td>
                  <span class={`pill ${stateOf(a)}`}>{stateOf(a)}</span>
                </td>
                <td class="num">{a.quota === null ? 'unlimited' : units(a.quota)}</td>
                <td class="num">{units(a.spent)}</td>
                <td class="num">{a.remaining === null ? 'unlimited' : units(a.remaining)}</td>
                <td>{budgetText(a)}</td>
                <td>{a.price_group ?? '—'}</td>
                <td>{time(a.created_at)}</td>
                <td>
                  <span class="actions">
                    <a
                      href={`#/accounts/${encodeURIComponent(a.id)}`}
                      aria-label={`Open ${plainName(a.name)}`}
                      aria-current={a.id === open ? 'true' : undefined}
                    >
                      Open
                    </a>
                    {a.revoked_at === null && (
                      <ConfirmButton
                        label="Revoke"
                        write="accounts"
                        confirm="Confirm revoke"
                        name={a.name}
                        run={() => call(`/admin/accounts/${encodeURIComponent(a.id)}`, { method: 'DELETE' })}
                        onDone={changed}
                      />
                    )}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager
        paging={paging}
        hasMore={list.data?.has_more ?? false}
        nextCursor={list.data?.next_cursor}
        labels={['Previous', 'Next']}
      />
    </section>
  );
}
