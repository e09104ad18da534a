// One token opened from the list: its balance, budgets and spend per model, a top-up, the edit form and its callback
// secret
// (a revoked token: its usage only).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Account, Token } from '../../types.ts';
import { CallbackSecret } from './callback-secret.tsx';
import { editableKey, TokenForm } from './token-form.tsx';
import { TokenUsage } from './token-usage.tsx';
import { TopUpForm } from './top-up-form.tsx';
import { Name, plainName } from '../../name.tsx';

export function TokenPanel({
  token,
  accounts,
  onChanged,
  onClose,
}: {
  token: Token;
  accounts: Account[];
  onChanged: () => void;
  onClose: () => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Balance figures change with a top-up or an edit: the usage is read again.
  const [version, setVersion] = useState(0);
  const [saved, setSaved] = useState<string | null>(null);
  useEffect(() => {
    heading.current?.focus();
    setSaved(null);
  }, [token.id]);
  const changed = () => {
    setVersion((v) => v + 1);
    onChanged();
  };
  const live = token.revoked_at === null;
  return (
    <section class="card panel" aria-labelledby="panel-title">
      <div class="panel-head">
        <h2 id="panel-title" tabIndex={-1} ref={heading}>
          Token “<Name value={token.name} />” <code>{token.id}</code>
        </h2>
        <button type="button" class="quiet" onClick={onClose}>
          Close
        </button>
      </div>
      <div class="two">
        <TokenUsage tokenId={token.id} version={version} />
        {live && (
          <div>
            <TopUpForm
              path={`/admin/tokens/${encodeURIComponent(token.id)}/topup`}
              quota={token.quota}
              what="token"
              onDone={changed}
            />
            <TokenForm
              key={editableKey(token)}
              token={token}
              accounts={accounts}
              onSaved={(t) => {
                setSaved(`Saved “${plainName(t.name)}”`);
                changed();
              }}
            />
            <p role="status" class="muted">
              {saved}
            </p>
            <CallbackSecret key={token.id} token={token} onDone={onChanged} />
          </div>
        )}
      </div>
      <p class="actions">
        <a href={`#/bills?token_id=${encodeURIComponent(token.id)}`}>Bills of this token</a>
        <a href={`#/logs?token_id=${encodeURIComponent(token.id)}`}>Its requests</a>
      </p>
    </section>
  );
}
