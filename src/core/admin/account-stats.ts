// The overview's busiest accounts (GET /admin/stats?group_by=account): the window's figures per token folded into the
// account each token belongs to now; tokens of no account are one row with account_id null.
import type { AccountsRepo } from '../../store/repos/accounts.ts';
import { amountOf, type Amount } from '../../vocabulary/exact-amount.ts';
import type { Totals } from '../../store/repos/request-stats.ts';
import { compareDown } from './stats-order.ts';

export interface AccountTotalsView {
  account_id: string | null;
  name: string | null;
  requests: number;
  errors: number;
  spend: Amount;
}

/** The `top` accounts by requests (then spend, then id) among the tokens' figures ('' = requests of no token). */
export async function topAccounts(
  repo: Pick<AccountsRepo, 'ofTokens'>,
  tokens: Map<string, Totals>,
  top: number,
): Promise<AccountTotalsView[]> {
  const owners = await repo.ofTokens([...tokens.keys()].filter((k) => k !== ''));
  const by = new Map<string, { view: AccountTotalsView; spend: bigint }>();
  for (const [tokenId, t] of tokens) {
    const a = owners.get(tokenId);
    const key = a?.id ?? '';
    const row = by.get(key) ?? {
      view: { account_id: a?.id ?? null, name: a?.name ?? null, requests: 0, errors: 0, spend: 0 },
      spend: 0n,
    };
    row.view.requests += t.requests;
    row.view.errors += t.errors;
    row.spend += t.amount;
    by.set(key, row);
  }
  const id = (r: AccountTotalsView) => r.account_id ?? '';
  return [...by.values()]
    .sort(
      (a, b) =>
        b.view.requests - a.view.requests || compareDown(a.spend, b.spend) || (id(a.view) < id(b.view) ? -1 : 1),
    )
    .slice(0, top)
    .map((r) => ({ ...r.view, spend: amountOf(r.spend) }));
}
