// GET /v1/usage: what a token holder may know about its own token — the balance (quota, used, reserved, remaining)
// and its charges per model over a period, from the ledger (the billing authority). No other token is reachable
// there; the operator reads any token's the same way (core/admin/token-usage.ts).
import { formatUnits } from '../metering/prices.ts';
import type { Meter } from '../metering/types.ts';
import type { LedgerRepo } from '../store/repos/ledger.ts';
import type { TokensRepo } from '../store/repos/tokens.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { principalOf, type HasState } from './call.ts';
import type { TokenUsageView } from './views.ts';

export interface TokenUsageDeps {
  readonly repos: { readonly tokens: TokensRepo; readonly ledger: LedgerRepo };
  readonly meter: Pick<Meter, 'flush'>;
}

/** The longest period one answer covers (a year and a day): the sums are computed per request. */
export const MAX_USAGE_PERIOD_MS = 367 * 86_400_000;

/** The start of the UTC month holding `now`. */
export function monthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

export interface UsageRange {
  since?: number | undefined;
  until?: number | undefined;
}

/** GET /v1/usage: the calling token's own usage. */
export function tokenUsage(deps: TokenUsageDeps, call: HasState, range: UsageRange, now = Date.now()): Promise<TokenUsageView> {
  return usageOf(deps, principalOf(call).tokenId, range, now, () => new GatewayError('invalid_token', 'Invalid token'));
}

/** A token's balance and charges per model over a period (by default the current UTC month); `unknown`: the error when there is no such token. */
export async function usageOf(deps: TokenUsageDeps, tokenId: string, range: UsageRange, now: number, unknown: () => GatewayError): Promise<TokenUsageView> {
  const since = range.since ?? monthStart(now);
  const until = range.until ?? now + 1;
  if (until <= since) throw new GatewayError('invalid_parameter', 'until must be after since', { param: 'until' });
  if (until - since > MAX_USAGE_PERIOD_MS) throw new GatewayError('invalid_parameter', 'The period may span at most 367 days', { param: 'since' });
  // Charges of answered calls may still be queued: count them, as the quota check does.
  await deps.meter.flush();
  const t = await deps.repos.tokens.get(tokenId);
  if (!t) throw unknown();
  const days = await deps.repos.ledger.dayTotals({ tokenId, since, until });
  const byModel = new Map<string, { requests: number; amount: number }>();
  let credit = 0;
  for (const d of days) {
    credit += d.credit;
    if (d.entries === 0) continue;
    const m = byModel.get(d.model) ?? { requests: 0, amount: 0 };
    m.requests += d.entries;
    m.amount += d.amount;
    byModel.set(d.model, m);
  }
  const data = [...byModel].map(([model, m]) => ({ model, requests: m.requests, amount: m.amount, amount_units: formatUnits(m.amount) })).sort((a, b) => a.model.localeCompare(b.model));
  const requests = data.reduce((s, m) => s + m.requests, 0);
  const amount = data.reduce((s, m) => s + m.amount, 0);
  return {
    object: 'token_usage',
    token: { id: t.id, name: t.name, models: t.models, expires_at: t.expiresAt },
    unit: 'micro-units (1 unit = 1,000,000)',
    balance: {
      quota: t.quota,
      used: t.spent,
      reserved: t.held,
      remaining: t.quota === null ? null : Math.max(0, t.quota - t.spent - t.held),
    },
    period: { since, until },
    usage: { data, total: { requests, amount, amount_units: formatUnits(amount) }, credited: credit },
  };
}
