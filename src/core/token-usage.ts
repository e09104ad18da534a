// GET /v1/usage: what a token holder may know about its own token — the balance (quota, spent, held, remaining)
// and its charges per model over a period, from the ledger (the billing authority). No other token is reachable
// there; the operator reads any token's the same way (core/admin/token-usage.ts).
import { formatUnits } from '../pricing/prices.ts';
import { addAmounts, type Amount } from '../vocabulary/exact-amount.ts';
import type { Meter } from '../metering/types.ts';
import type { LedgerRepo } from '../store/repos/ledger.ts';
import type { TokenRecord } from '../store/repos/token-record.ts';
import type { TokensRepo } from '../store/repos/tokens.ts';
import type { AccountsRepo } from '../store/repos/accounts.ts';
import { budgetStatus } from './admin/budgets.ts';
import { remaining } from '../metering/balances/remaining.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { principalOf, type HasState } from './call.ts';
import { usagePeriod, type UsageRange } from './usage-period.ts';
import { ledgerCount, type TokenUsageView } from './views.ts';

export interface TokenUsageDeps {
  readonly repos: { readonly tokens: TokensRepo; readonly ledger: LedgerRepo; readonly accounts: AccountsRepo };
  readonly meter: Pick<Meter, 'flush' | 'now'>;
}

export type { UsageRange } from './usage-period.ts';

/** GET /v1/usage: the calling token's own usage. */
export function tokenUsage(
  deps: TokenUsageDeps,
  call: HasState,
  range: UsageRange,
  now = deps.meter.now(),
): Promise<TokenUsageView> {
  return usageOf(deps, principalOf(call).tokenId, range, now, () => new GatewayError('invalid_token', 'Invalid token'));
}

/**
 * A token's balance and charges per model over a period (by default the current UTC month); `unknown`: the error when
 * there is no such token.
 */
export async function usageOf(
  deps: TokenUsageDeps,
  tokenId: string,
  range: UsageRange,
  now: number,
  unknown: () => GatewayError,
): Promise<TokenUsageView> {
  const { since, until } = usagePeriod(range, now);
  // Charges of answered calls may still be queued: count them, as the quota check does.
  await deps.meter.flush();
  const t = await deps.repos.tokens.get(tokenId);
  if (!t) throw unknown();
  const days = await deps.repos.ledger.dayTotals({ tokenId, since, until });
  const byModel = new Map<string, { entries: number; amount: Amount }>();
  let credit: Amount = 0;
  for (const d of days) {
    credit = addAmounts(credit, d.credit);
    if (d.entries === 0) continue;
    const m = byModel.get(d.model) ?? { entries: 0, amount: 0 };
    m.entries += d.entries;
    m.amount = addAmounts(m.amount, d.amount);
    byModel.set(d.model, m);
  }
  const data = [...byModel]
    .map(([model, m]) => ({ model, ...ledgerCount(m.entries), amount: m.amount, amount_units: formatUnits(m.amount) }))
    .sort((a, b) => a.model.localeCompare(b.model));
  const entries = data.reduce((s, m) => s + m.entries, 0);
  const amount = addAmounts(...data.map((m) => m.amount));
  return {
    object: 'token_usage',
    token: { id: t.id, name: t.name, models: t.models, expires_at: t.expiresAt },
    unit: 'micro-units (1 unit = 1,000,000)',
    balance: balanceOf(t),
    period: { since, until },
    usage: { data, total: { ...ledgerCount(entries), amount, amount_units: formatUnits(amount) }, credited: credit },
    ...(await budgetsOf(deps, t, now)),
  };
}

// spent/held as the budgets say them; used/reserved are their former names, kept for one release (docs/api.md).
const balanceOf = (h: { quota: number | null; spent: number; held: number }): TokenUsageView['balance'] => ({
  quota: h.quota,
  spent: h.spent,
  held: h.held,
  remaining: remaining(h.quota, h.spent, h.held),
  used: h.spent,
  reserved: h.held,
});

/** The token's budgets, and its account's balance and budgets (periods in the account's time zone). */
async function budgetsOf(
  deps: TokenUsageDeps,
  t: TokenRecord,
  now: number,
): Promise<Pick<TokenUsageView, 'budgets' | 'account'>> {
  const a = t.accountId === null ? null : await deps.repos.accounts.get(t.accountId);
  const tz = a?.timeZone ?? null;
  const budgets = await budgetStatus(deps.repos.accounts, t.id, t.budgets, tz, now);
  if (!a) return { budgets, account: null };
  return {
    budgets,
    account: {
      id: a.id,
      name: a.name,
      balance: balanceOf(a),
      budgets: await budgetStatus(deps.repos.accounts, a.id, a.budgets, tz, now),
      time_zone: tz,
      expires_at: a.expiresAt,
    },
  };
}
