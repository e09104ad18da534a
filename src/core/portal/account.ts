// What a member sees of their own account: its balance and budgets with its tokens', its usage and spend by model and
// UTC day, and its tokens' request log without upstream details. No HTTP here; every read is of the member's account.
import { GatewayError } from '../../errors/gateway-error.ts';
import type { Meter } from '../../metering/types.ts';
import type { AccountsRepo } from '../../store/repos/accounts.ts';
import type { LedgerRepo } from '../../store/repos/ledger.ts';
import type { RequestLogEntry, RequestLogRepo } from '../../store/repos/request-log.ts';
import type { TokensRepo } from '../../store/repos/tokens.ts';
import type { TokenRecord } from '../../store/repos/token-record.ts';
import { addAmounts, type Amount } from '../../vocabulary/exact-amount.ts';
import { publicAccount, type AccountView } from '../admin/accounts.ts';
import { billLines } from '../admin/bills.ts';
import { budgetStatus, type BudgetStatus } from '../admin/budgets.ts';
import { remaining } from '../admin/holders.ts';
import { requestLogPage, type Page } from '../admin/lists.ts';
import type { Keyset } from '../../store/keyset.ts';

export interface PortalReadDeps {
  readonly repos: {
    readonly accounts: AccountsRepo;
    readonly tokens: TokensRepo;
    readonly ledger: LedgerRepo;
    readonly requestLog: RequestLogRepo;
  };
  readonly meter: Pick<Meter, 'flush' | 'now'>;
  readonly requestLog: { flush(): Promise<void> };
}

/** A token as its member sees it: never its secret; its remaining quota and its budgets now. */
export interface PortalTokenView {
  id: string;
  name: string;
  prefix: string;
  models: string[] | null;
  quota: number | null;
  spent: number;
  held: number;
  remaining: number | null;
  rpm_limit: number | null;
  tpm_limit: number | null;
  concurrency_limit: number | null;
  expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
  callback_secret_issued_at: number | null;
}

export function portalToken(t: TokenRecord): PortalTokenView {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    models: t.models,
    quota: t.quota,
    spent: t.spent,
    held: t.held,
    remaining: remaining(t.quota, t.spent, t.held),
    rpm_limit: t.rpmLimit,
    tpm_limit: t.tpmLimit,
    concurrency_limit: t.concurrencyLimit,
    expires_at: t.expiresAt,
    revoked_at: t.revokedAt,
    created_at: t.createdAt,
    callback_secret_issued_at: t.callbackSecretIssuedAt,
  };
}

/** Another account's id (or an unknown one) is not found: a member never learns that it exists. */
export function sameAccount(own: string, asked: string): void {
  if (own !== asked) throw new GatewayError('not_found', `Account ${asked} not found`);
}

/** A token of the member's account, else 404 (another account's token is not found either). */
export async function accountToken(
  deps: { readonly repos: Pick<PortalReadDeps['repos'], 'tokens'> },
  accountId: string,
  id: string,
) {
  const t = await deps.repos.tokens.get(id);
  if (!t || t.accountId !== accountId) throw new GatewayError('not_found', `Token ${id} not found`);
  return t;
}

export async function accountTokens(
  deps: { readonly repos: Pick<PortalReadDeps['repos'], 'tokens' | 'accounts'> },
  accountId: string,
): Promise<TokenRecord[]> {
  const ids = await deps.repos.accounts.tokenIds(accountId);
  const all = await Promise.all(ids.map((id) => deps.repos.tokens.get(id)));
  return all.filter((t): t is TokenRecord => t !== null);
}

export interface PortalOverview {
  object: 'portal.account';
  account: AccountView;
  budgets: BudgetStatus[];
  tokens: Array<PortalTokenView & { budgets: BudgetStatus[] }>;
}

/** The account's balance and budgets, and each token's remaining quota and budgets, now. */
export async function portalOverview(deps: PortalReadDeps, accountId: string): Promise<PortalOverview> {
  await deps.meter.flush();
  const now = deps.meter.now();
  const a = await deps.repos.accounts.get(accountId);
  if (!a) throw new GatewayError('not_found', `Account ${accountId} not found`);
  const tokens = await accountTokens(deps, accountId);
  return {
    object: 'portal.account',
    account: publicAccount(a),
    budgets: await budgetStatus(deps.repos.accounts, a.id, a.budgets, a.timeZone, now),
    tokens: await Promise.all(
      tokens.map(async (t) => ({
        ...portalToken(t),
        budgets: await budgetStatus(deps.repos.accounts, t.id, t.budgets, a.timeZone, now),
      })),
    ),
  };
}

export interface UsageDay {
  day: string;
  models: Record<string, { requests: number; amount: Amount }>;
}

export const MAX_USAGE_DAYS = 366;

/** Requests and spend by UTC day and model over the last `days` days (today included), from the ledger. */
export async function portalUsage(
  deps: PortalReadDeps,
  accountId: string,
  days: number,
): Promise<{ object: 'portal.usage'; unit: string; since: number; until: number; data: UsageDay[] }> {
  const now = deps.meter.now();
  const until = Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000;
  const since = until - days * 86_400_000;
  const { lines } = await billLines(deps, { accountId, since, until }, 'day', null);
  const byDay = new Map<string, UsageDay>();
  for (let d = since; d < until; d += 86_400_000) {
    const day = new Date(d).toISOString().slice(0, 10);
    byDay.set(day, { day, models: {} });
  }
  for (const l of lines) {
    const day = byDay.get(l.period_start);
    if (!day) continue;
    for (const [model, m] of Object.entries(l.models)) {
      const had = day.models[model];
      day.models[model] = {
        requests: (had?.requests ?? 0) + m.entries,
        amount: had ? addAmounts(had.amount, m.amount) : m.amount,
      };
    }
  }
  return { object: 'portal.usage', unit: 'micro-units (1 unit = 1,000,000)', since, until, data: [...byDay.values()] };
}

/** A request-log row as a member sees it: no channel, no upstream attempt, request id or upstream words. */
export type PortalLogEntry = Omit<
  RequestLogEntry,
  'channel_id' | 'attempts' | 'upstream_request_id' | 'upstream_error'
>;

export function portalLogEntry(e: RequestLogEntry): PortalLogEntry {
  return {
    request_id: e.request_id,
    token_id: e.token_id,
    model: e.model,
    endpoint: e.endpoint,
    method: e.method,
    status: e.status,
    latency_ms: e.latency_ms,
    ttfb_ms: e.ttfb_ms,
    usage: e.usage,
    amount: e.amount,
    error_code: e.error_code,
    created_at: e.created_at,
  };
}

export interface PortalLogFilter {
  tokenId?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
  after?: Keyset | undefined;
  limit: number;
}

/** The request log of the account's own tokens (or one of them), newest first. */
export async function portalLogs(
  deps: PortalReadDeps,
  accountId: string,
  f: PortalLogFilter,
): Promise<Page<PortalLogEntry>> {
  if (f.tokenId !== undefined) await accountToken(deps, accountId, f.tokenId);
  const tokenIds = f.tokenId !== undefined ? [f.tokenId] : await deps.repos.accounts.tokenIds(accountId);
  await deps.requestLog.flush();
  const page = await requestLogPage(deps.repos.requestLog, {
    tokenIds,
    since: f.since,
    until: f.until,
    after: f.after,
    limit: f.limit,
  });
  return { ...page, data: page.data.map(portalLogEntry) };
}
