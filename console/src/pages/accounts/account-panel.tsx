// One account opened from the list (#/accounts/<id>): its balance and budgets, spend per model and by period, its
// tokens, its portal members, a top-up and the edit form, and its revocation (a revoked account: its figures only).
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../../api.ts';
import { ConfirmButton } from '../../confirm-button.tsx';
import { time } from '../../format.ts';
import type { Account, Token } from '../../types.ts';
import { TopUpForm } from '../tokens/top-up-form.tsx';
import { AccountForm, accountKey } from './account-form.tsx';
import { AccountSpend } from './account-spend.tsx';
import { AccountMembers } from './account-members.tsx';
import { AccountTokens } from './account-tokens.tsx';
import { AccountUsage } from './account-usage.tsx';
import { Name, plainName } from '../../name.tsx';

export function AccountPanel({
  account,
  tokens,
  groups,
  onChanged,
}: {
  account: Account;
  tokens: Token[];
  groups: string[];
  onChanged: () => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  // The figures change with a top-up or an edit: they are read again.
  const [version, setVersion] = useState(0);
  const [saved, setSaved] = useState<string | null>(null);
  useEffect(() => {
    heading.current?.focus();
    setSaved(null);
  }, [account.id]);
  const changed = () => {
    setVersion((v) => v + 1);
    onChanged();
  };
  const live = account.revoked_at === null;
  const path = `/admin/accounts/${encodeURIComponent(account.id)}`;
  return (
    <section class="card panel" aria-labelledby="account-title">
      <div class="panel-head">
        <h2 id="account-title" tabIndex={-1} ref={heading}>
          Account “<Name value={account.name} />” <code>{account.id}</code>
        </h2>
        <a href="#/accounts">Close</a>
      </div>
      {!live && <p class="muted">Revoked {time(account.revoked_at)}: every token of the account is refused.</p>}
      <div class="two">
        <AccountUsage accountId={account.id} version={version} />
        <AccountSpend accountId={account.id} version={version} />
      </div>
      <AccountTokens tokens={tokens} />
      <AccountMembers accountId={account.id} live={live} />
      {live && (
        <div class="two">
          <TopUpForm key={account.id} path={`${path}/topup`} quota={account.quota} what="account" onDone={changed} />
          <div>
            <AccountForm
              key={accountKey(account)}
              account={account}
              groups={groups}
              onSaved={(a) => {
                setSaved(`Saved “${plainName(a.name)}”`);
                changed();
              }}
            />
            <p role="status" class="muted">
              {saved}
            </p>
          </div>
        </div>
      )}
      <p class="actions">
        <a href={`#/bills?by=account&account_id=${encodeURIComponent(account.id)}`}>Bills of this account</a>
        {live && (
          <ConfirmButton
            label="Revoke account"
            write="accounts"
            confirm="Confirm revoking account"
            name={account.name}
            run={() => call(path, { method: 'DELETE' })}
            onDone={changed}
          />
        )}
      </p>
    </section>
  );
}
