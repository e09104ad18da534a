// A token as the operator sees it, with its account's balance when it has one: a token of no quota of its own in an
// exhausted account is not "unlimited" — what it may still spend is the least its quota and its account's leave.
import type { AccountRecord, AccountsRepo } from '../../store/repos/accounts.ts';
import type { TokenRecord } from '../../store/repos/token-record.ts';
import type { TokenView } from '../views.ts';
import { remaining } from './holders.ts';
import { publicToken } from './tokens.ts';

export interface TokenViewDeps {
  repos: { accounts: Pick<AccountsRepo, 'byIds'> };
}

/** The least of the limits' remainders; null when none of them has a limit. */
function least(...xs: Array<number | null>): number | null {
  const known = xs.filter((x): x is number => x !== null);
  return known.length === 0 ? null : Math.min(...known);
}

function withAccount(t: TokenRecord, a: AccountRecord | undefined): TokenView {
  const own = remaining(t.quota, t.spent, t.held);
  const account = a
    ? {
        id: a.id,
        name: a.name,
        quota: a.quota,
        spent: a.spent,
        held: a.held,
        remaining: remaining(a.quota, a.spent, a.held),
      }
    : null;
  return { ...publicToken(t), remaining: own, account, effective_remaining: least(own, account?.remaining ?? null) };
}

/** Tokens as the operator sees them, each with its account's balance (one read for all of them). */
export async function tokenViews(deps: TokenViewDeps, tokens: readonly TokenRecord[]): Promise<TokenView[]> {
  const ids = tokens.flatMap((t) => (t.accountId === null ? [] : [t.accountId]));
  const accounts = ids.length === 0 ? new Map<string, AccountRecord>() : await deps.repos.accounts.byIds(ids);
  return tokens.map((t) => withAccount(t, t.accountId === null ? undefined : accounts.get(t.accountId)));
}

export async function tokenView(deps: TokenViewDeps, t: TokenRecord): Promise<TokenView> {
  return (await tokenViews(deps, [t]))[0]!;
}
