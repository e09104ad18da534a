import type { Logger } from 'pino';
import type { TokenAuth } from '../auth/token-auth.ts';
import type { SecretBox } from '../auth/secret-box.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { Config } from '../config/config.ts';
import type { Meter } from '../metering/types.ts';
import type { UpstreamClient } from '../adapters/http-client.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import type { ClusterBus } from '../cluster/cluster-bus.ts';
import type { CircuitBreakers } from '../routing/circuit-breaker.ts';
import type { ChannelRegistry } from '../routing/channel-registry.ts';
import type { AuditRepo } from '../store/repos/audit.ts';
import type { ChannelsRepo } from '../store/repos/channels.ts';
import type { RequestLogWriter } from '../store/repos/request-log.ts';
import type { TokensRepo } from '../store/repos/tokens.ts';
import type { Store } from '../store/store.ts';
import type { TaskEngine } from '../tasks/engine.ts';

/** Everything the HTTP layer needs, wired in main.ts (or a test harness): no singletons. */
export interface AppDeps {
  config: Config;
  store: Store;
  logger: Logger;
  adminKey: string;
  box: SecretBox;
  catalogue: Catalogue;
  channels: ChannelRegistry;
  tokenAuth: TokenAuth;
  repos: {
    tokens: TokensRepo;
    channels: ChannelsRepo;
    audit: AuditRepo;
  };
  requestLog: RequestLogWriter;
  meter: Meter;
  upstream: UpstreamClient;
  /** Durable async task engine (videos, family A tasks); drivers register per kind. */
  tasks: TaskEngine;
  limiter: RateLimiter;
  /** Per-channel circuit breakers (routing/failover.ts). */
  breakers: CircuitBreakers;
  /** Announces admin changes to the other gateway instances (Redis pub/sub when configured). */
  cluster: ClusterBus;
}
