import type { Capacity } from '../capacity/capacity.ts';
import type { CapacityCalls } from './capacity-call.ts';
import type { AdminKeyDeps } from './console/sessions.ts';
import type { Logger } from 'pino';
import type { TokenAuth } from '../auth/token-auth.ts';
import type { SecretBox } from '../auth/secret-box.ts';
import type { OidcIssuer } from '../auth/oidc-issuer.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { Config } from '../config/config.ts';
import type { Meter } from '../metering/types.ts';
import type { UpstreamClient } from '../adapters/http-client.ts';
import type { SafeNet } from '../net/safe-fetch.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import type { DashscopeTextAdapter } from '../adapters/dashscope/compat-chat-adapter.ts';
import type { ClusterBus, ClusterEvent } from '../cluster/cluster-bus.ts';
import type { ChannelProber } from '../adapters/probe.ts';
import type { CircuitBreakers } from '../routing/circuit-breaker.ts';
import type { ChannelRegistry } from '../routing/channel-registry.ts';
import type { AuditRepo } from '../store/repos/audit.ts';
import type { ChannelsRepo } from '../store/repos/channels.ts';
import type { LedgerRepo } from '../store/repos/ledger.ts';
import type { RequestLogRepo, RequestLogWriter } from '../store/repos/request-log.ts';
import type { ReconcileRepo } from '../store/repos/reconcile.ts';
import type { ConsoleSessionsRepo } from '../store/repos/console-sessions.ts';
import type { StaffRepo } from '../store/repos/staff.ts';
import type { MembersRepo } from '../store/repos/members.ts';
import type { PortalSessionsRepo } from '../store/repos/portal-sessions.ts';
import type { GaugesRepo } from '../store/repos/gauges.ts';
import type { RequestStatsRepo } from '../store/repos/request-stats.ts';
import type { LedgerStatsRepo } from '../store/repos/ledger-stats.ts';
import type { TokensRepo } from '../store/repos/tokens.ts';
import type { WebhooksRepo } from '../store/repos/webhooks.ts';
import type { CreditCodesRepo } from '../store/repos/credit-codes.ts';
import type { PaymentEventsRepo } from '../store/repos/payment-events.ts';
import type { AlertEmitter } from '../alerts/emitter.ts';
import type { AccountsRepo } from '../store/repos/accounts.ts';
import type { PriceGroupsRepo } from '../store/repos/price-groups.ts';
import type { PriceGroups } from '../pricing/price-groups.ts';
import type { Store } from '../store/store.ts';
import type { TaskEngine } from '../tasks/engine.ts';
import type { KlingClient } from '../adapters/kling/client.ts';
import type { CallbackDispatcher } from '../tasks/callbacks.ts';
import type { SessionsRepo } from '../store/repos/sessions.ts';
import type { GatewayMetrics } from '../observe/metrics.ts';
import type { MoneyMetrics } from '../observe/money-metrics.ts';
import type { Tracing } from '../observe/tracing.ts';

/** Everything the HTTP layer needs, built in src/compose.ts: no singletons. */
export interface GatewayDeps {
  config: Config;
  store: Store;
  logger: Logger;
  adminKey: string;
  /**
   * What the admin key's check needs (console sign-in, admin API, /metrics): core/console/sessions.ts checkAdminKey.
   */
  adminKeys: AdminKeyDeps;
  box: SecretBox;
  /** The console's single sign-on issuer (TOLLWAY_OIDC_*); null when off. */
  oidc: OidcIssuer | null;
  catalogue: Catalogue;
  channels: ChannelRegistry;
  tokenAuth: TokenAuth;
  repos: {
    tokens: TokensRepo;
    channels: ChannelsRepo;
    audit: AuditRepo;
    ledger: LedgerRepo;
    /** Reads of the request log (the writer is `requestLog`). */
    requestLog: RequestLogRepo;
    reconcile: ReconcileRepo;
    consoleSessions: ConsoleSessionsRepo;
    /** Staff people and their personal admin keys. */
    staff: StaffRepo;
    /** Members of customer accounts and their keys (the portal). */
    members: MembersRepo;
    portalSessions: PortalSessionsRepo;
    requestStats: RequestStatsRepo;
    ledgerStats: LedgerStatsRepo;
    gauges: GaugesRepo;
    webhooks: WebhooksRepo;
    accounts: AccountsRepo;
    priceGroups: PriceGroupsRepo;
    /** Redemption code batches and their codes. */
    creditCodes: CreditCodesRepo;
    /** The payment provider's events and their outcomes. */
    payments: PaymentEventsRepo;
  };
  /** The price groups accounts are charged by, as this instance has them (reloaded on a change). */
  priceGroups: PriceGroups;
  requestLog: RequestLogWriter;
  meter: Meter;
  upstream: UpstreamClient;
  /** The outbound-network guard for downloads made on the upstream's behalf (result files, images to inline). */
  net: SafeNet;
  /** Durable async task engine (videos, family A tasks); drivers register per kind. */
  tasks: TaskEngine;
  limiter: RateLimiter;
  /** Per-channel circuit breakers (routing/failover.ts). */
  breakers: CircuitBreakers;
  /** Admission to upstream accounts x models: stated, read or learnt limits and the fair queue (capacity/). */
  capacity: Capacity;
  /** The gates as synchronous calls meet them (capacity-call.ts). */
  capacityCalls: CapacityCalls;
  /** Writes operator alerts to the webhook outbox (src/alerts). */
  alerts: AlertEmitter;
  /** The operator's channel check (POST /admin/channels/{id}/test). */
  prober: ChannelProber;
  /** Announces admin changes to the other gateway instances (Redis pub/sub when configured). */
  cluster: ClusterBus;
  /** Apply an admin change to this instance's caches, then announce it on `cluster`. */
  applyChange(e: ClusterEvent): Promise<void>;
  /**
   * Prometheus metrics (GET /metrics): requests and upstream attempts counted on the way, the rest read at scrape time.
   */
  metrics: GatewayMetrics;
  /** The money series of /metrics: spend from the ledger, tokens in and out, what accounts with a limit have left. */
  moneyMetrics: MoneyMetrics;
  /** OpenTelemetry tracing when the OTEL_* variables switch it on; null (the default) when off. */
  tracing: Tracing | null;
}

/** Objects built in src/compose.ts that only the routes use. */
export interface AppParts {
  /** The DashScope text adapter behind chat, responses, messages and embeddings. */
  text: DashscopeTextAdapter;
  /** What every /vidx route shares. */
  vidx: VidxContext;
}

/** What every family A route shares (vidx/context.ts): declared here, beside the deps it carries. */
export interface VidxContext {
  deps: GatewayDeps;
  client: KlingClient;
  sessions: SessionsRepo;
  /** Key for the unguessable part of upstream callback addresses. */
  callbackKey: string;
  /** Called when a task may have become terminal, so client callbacks go out promptly. */
  kick(): void;
  dispatcher: CallbackDispatcher;
}
