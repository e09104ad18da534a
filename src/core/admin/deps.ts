// What the admin operations need, whoever calls them (the admin API or the CLI), and who is calling (the audit line).
import type { SecretBox } from '../../auth/secret-box.ts';
import type { Catalogue } from '../../catalogue/catalogue.ts';
import type { ClusterEvent } from '../../cluster/cluster-bus.ts';
import type { AuditRepo } from '../../store/repos/audit.ts';
import type { ChannelsRepo } from '../../store/repos/channels.ts';
import type { ReconcileRepo } from '../../store/repos/reconcile.ts';
import type { TokensRepo } from '../../store/repos/tokens.ts';
import type { WebhooksRepo } from '../../store/repos/webhooks.ts';
import type { AccountsRepo } from '../../store/repos/accounts.ts';
import type { LedgerRepo } from '../../store/repos/ledger.ts';
import type { PriceGroupsRepo } from '../../store/repos/price-groups.ts';
import type { RequestStatsRepo } from '../../store/repos/request-stats.ts';
import type { LedgerStatsRepo } from '../../store/repos/ledger-stats.ts';
import type { Store } from '../../store/store.ts';

export interface AdminDeps {
  readonly repos: {
    readonly tokens: TokensRepo;
    readonly channels: ChannelsRepo;
    readonly audit: AuditRepo;
    readonly reconcile: ReconcileRepo;
    readonly webhooks: WebhooksRepo;
    readonly accounts: AccountsRepo;
    readonly priceGroups: PriceGroupsRepo;
    readonly ledger: LedgerRepo;
    readonly requestStats: RequestStatsRepo;
    readonly ledgerStats: LedgerStatsRepo;
  };
  /** For the few changes that write several tables in one transaction (a top-up: ledger line and quota). */
  readonly store: Pick<Store, 'db'>;
  readonly box: SecretBox;
  /** Read at call time: a price change replaces it. */
  readonly catalogue: Catalogue;
  /** Apply an admin change to this process's caches, then announce it to the other instances. */
  applyChange(e: ClusterEvent): Promise<void>;
}

/**
 * Who made a change: `admin` (the admin API, with its request id), `console` (a console session), `cli`, `token` (a
 * customer's token: a code redeemed by API), `member` (a customer account's member, in the portal) or `stripe` (a
 * verified Stripe event).
 */
export interface Actor {
  actor: 'admin' | 'cli' | 'console' | 'token' | 'stripe' | 'member';
  /** The account member (actor `member`). */
  member?: string;
  /** The console session's public id. */
  session?: string;
  /** The customer's token id (actor `token`). */
  token?: string;
  requestId?: string;
  /** The staff person behind the change (core/staff/roles.ts); absent: the bootstrap admin key, the CLI. */
  person?: string;
  /** The admin key used: a personal key's id, or `admin-key` (the bootstrap key). */
  key?: string;
}

/** The actor as audit lines (and the price history) name it: `admin`, `cli`, `console:<session id>`, `token:<id>`… */
export function actorName(by: Actor): string {
  if (by.session) return `console:${by.session}`;
  if (by.member) return `member:${by.member}`;
  return by.token ? `token:${by.token}` : by.actor;
}

/** One audit line per admin action. */
export function audit(
  deps: { readonly repos: Pick<AdminDeps['repos'], 'audit'> },
  by: Actor,
  action: string,
  target: string,
  detail?: Record<string, unknown>,
): Promise<void> {
  return deps.repos.audit.write({
    actor: actorName(by),
    action,
    target,
    ...(detail ? { detail } : {}),
    ...(by.requestId ? { requestId: by.requestId } : {}),
    ...(by.person ? { personId: by.person } : {}),
    ...(by.key ? { keyId: by.key } : {}),
  });
}
