// A token's quota cell: its own quota, or its account's when it has none of its own, with what is left — a token of
// an exhausted account is not "unlimited".
import { units } from '../../format.ts';
import type { Token } from '../../types.ts';

export function TokenQuota({ t }: { t: Token }) {
  const account = t.account ?? null;
  if (t.quota === null && (account === null || account.quota === null)) return <>unlimited</>;
  const left = t.effective_remaining ?? null;
  const own = t.quota === null ? `account ${units(account!.quota!)}` : units(t.quota);
  return (
    <span data-quota-left={left ?? ''}>
      {own}
      {left === null ? null : (
        <>
          <br />
          <small>{left === 0 ? 'none left' : `${units(left)} left`}</small>
        </>
      )}
    </span>
  );
}
