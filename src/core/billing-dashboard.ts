// The legacy billing endpoints the OpenAI and new-api dashboards read (GET /dashboard/billing/subscription and
// /dashboard/billing/usage, also under /v1): the calling token's limit and its spend, in the gateway's units where
// those dashboards expect dollars. Mapping: every `*_usd` field is units (1 unit = 1,000,000 micro-units), and
// `total_usage` and each `cost` are hundredths of a unit (the dashboards' cents).
import { GatewayError } from '../errors/gateway-error.ts';
import type { Meter } from '../metering/types.ts';
import type { AccountsRepo } from '../store/repos/accounts.ts';
import type { LedgerRepo } from '../store/repos/ledger.ts';
import type { TokensRepo } from '../store/repos/tokens.ts';
import { principalOf, type HasState } from './call.ts';
import { usagePeriod } from './usage-period.ts';

export interface BillingDashboardDeps {
  readonly repos: {
    readonly tokens: Pick<TokensRepo, 'get'>;
    readonly accounts: Pick<AccountsRepo, 'get'>;
    readonly ledger: Pick<LedgerRepo, 'dayTotals'>;
  };
  readonly meter: Pick<Meter, 'flush' | 'now'>;
}

/** The limit shown for a token with no quota anywhere: new-api's "unlimited" figure. */
export const NO_LIMIT_UNITS = 100_000_000;
const MICRO_PER_UNIT = 1_000_000;
const DAY_MS = 86_400_000;

async function tokenOf(deps: BillingDashboardDeps, call: HasState) {
  const t = await deps.repos.tokens.get(principalOf(call).tokenId);
  if (!t) throw new GatewayError('invalid_token', 'Invalid token');
  return t;
}

/** The token's quota, else its account's, in units; NO_LIMIT_UNITS when neither has one. */
export async function billingSubscription(deps: BillingDashboardDeps, call: HasState) {
  const t = await tokenOf(deps, call);
  const account = t.quota === null && t.accountId !== null ? await deps.repos.accounts.get(t.accountId) : null;
  const quota = t.quota ?? account?.quota ?? null;
  const limit = quota === null ? NO_LIMIT_UNITS : quota / MICRO_PER_UNIT;
  return {
    object: 'billing_subscription',
    has_payment_method: true,
    soft_limit_usd: limit,
    hard_limit_usd: limit,
    system_hard_limit_usd: limit,
    // Unix seconds; 0: no expiry.
    access_until: t.expiresAt === null ? 0 : Math.floor(t.expiresAt / 1000),
  };
}

/** `YYYY-MM-DD` (UTC) as ms; undefined when absent. */
export function billingDate(v: string | undefined, param: string): number | undefined {
  if (v === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(ms)) throw new GatewayError('invalid_parameter', `${param} must be a date YYYY-MM-DD`, { param });
  return ms;
}

/**
 * The token's charges over [start_date, end_date) (UTC days; end exclusive), in hundredths of a unit, with each day's
 * cost per model. Without dates: everything the token has spent.
 */
export async function billingUsage(
  deps: BillingDashboardDeps,
  call: HasState,
  range: { start?: number | undefined; end?: number | undefined },
) {
  await deps.meter.flush();
  const t = await tokenOf(deps, call);
  const whole = range.start === undefined && range.end === undefined;
  const { since, until } = whole
    ? { since: 0, until: deps.meter.now() + 1 }
    : usagePeriod({ since: range.start, until: range.end }, deps.meter.now());
  const days = whole && t.spent === 0 ? [] : await deps.repos.ledger.dayTotals({ tokenId: t.id, since, until });
  const byDay = new Map<number, Array<{ name: string; cost: number }>>();
  let total = 0;
  for (const d of days) {
    if (d.entries === 0) continue;
    const cost = Number(d.amount) / (MICRO_PER_UNIT / 100);
    total += cost;
    const items = byDay.get(d.day) ?? [];
    items.push({ name: d.model, cost });
    byDay.set(d.day, items);
  }
  return {
    object: 'list',
    total_usage: total,
    daily_costs: [...byDay]
      .sort((a, b) => a[0] - b[0])
      .map(([day, line_items]) => ({ timestamp: (day * DAY_MS) / 1000, line_items })),
  };
}
