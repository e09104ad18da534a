// The only reader of process.env. Everything else receives a typed Config.
import { resolve } from 'node:path';
import type { TaskEngineOptions } from '../tasks/options.ts';
import { boolVar, ConfigError, intVar, secretVar, urlVar, type Env } from './env-vars.ts';
import { oidcConfig, type OidcConfig } from './oidc-env.ts';
import { tracingConfig, type TracingConfig } from './otel-env.ts';
import { taskConfig } from './task-env.ts';
import { alertConfig, type AlertConfig } from './alert-env.ts';
import { stripeConfig, type StripeConfig } from './payment-env.ts';
import { corsVar, type CorsConfig } from './cors-env.ts';
import { simLimitsConfig, type SimLimitsConfig } from './sim-env.ts';
import { parseTrustProxy, type TrustProxy } from './trust-proxy.ts';
import type { ChannelKind } from '../adapters/upstreams.ts';
import { DEFAULT_RESULT_HOSTS, envUpstreams, hasEnvKeys, type EnvUpstream } from './upstream-env.ts';

export type { CorsConfig, EnvUpstream, OidcConfig, TracingConfig, TrustProxy };
export { checkRegion, hasEnvKeys } from './upstream-env.ts';
export { ConfigError };

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  adminKey: string | undefined;
  secret: string | undefined;
  /** Each upstream (adapters/upstreams.ts) by channel kind. */
  upstreams: Record<ChannelKind, EnvUpstream>;
  /** Public URL of this gateway (for upstream callbacks); optional. */
  publicUrl: string | undefined;
  redisUrl: string | undefined;
  /**
   * How often channels and the catalogue are re-read from the store (other instances' admin changes), ms; 0 = never.
   */
  refreshMs: number;
  logLevel: string;
  /** Max request body in bytes for JSON endpoints. */
  bodyLimit: number;
  /** Max request body in bytes for upload endpoints (image edits, video creation; multipart in total). */
  uploadBodyLimit: number;
  /** Hosts the gateway may download results from (b64 conversion, video content). */
  resultHosts: string[];
  /** Allow outbound calls to loopback/private addresses (tests, demo). */
  allowPrivateNetwork: boolean;
  /** Exact origins (scheme://host:port) trusted for result downloads even on private addresses: the demo simulator. */
  trustedResultOrigins: string[];
  /** Demo-mode simulated task duration (ms). */
  simTaskMs: number;
  /** The simulator's synchronous rate limits (demo mode and `tollway simulate`); unset fields keep its defaults. */
  simLimits: SimLimitsConfig;
  /** Async task engine (src/tasks): poller, back-off, leases, max age. */
  tasks: TaskConfig;
  /**
   * Upstream capacity (src/capacity): how long a call waits for room, and how often upstream limits are read (ms; 0 =
   * never).
   */
  capacity: { queueWaitMs: number; readLimitsMs: number; learn: boolean };
  /** Family A completion callbacks to clients (src/tasks/callbacks.ts). */
  callbacks: CallbackConfig;
  /** Operator alerts and their webhooks (src/alerts). */
  alerts: AlertConfig;
  /** The Stripe webhook that credits payments (payment-env.ts); null: off. */
  stripe: StripeConfig | null;
  /** Port for the in-process simulator in demo mode (0 = any). */
  simPort: number;
  dataDir: string;
  /** Operator catalogue file (JSON array of {model, ...partial entry}) applied over the built-in catalogue. */
  catalogueFile: string | undefined;
  /** Graceful shutdown: how long in-flight requests and streams may take to drain (ms). */
  drainMs: number;
  /** A request (headers and body) not received within this time is cut (408), authenticated or not (ms). */
  requestTimeoutMs: number;
  /**
   * A streaming client that takes no byte for this long is cut (its upstream call aborted, metered for what it
   * produced).
   */
  clientStallMs: number;
  /** A quota reservation still open after this long was left by a stopped instance and is released (ms). */
  reservationTtlMs: number;
  /** Upstream call timeouts (ms): connect, first byte (response headers), idle gap in a body/stream. */
  upstreamTimeouts: { connectMs: number; headersMs: number; bodyIdleMs: number };
  /**
   * V8 old-generation growth between full GCs, in % over the live size (0 = V8's own heuristic); see
   * src/runtime/heap.ts.
   */
  heapGrowingPercent: number;
  /**
   * SQLite: commit per-request rows from a writer thread (off the event loop) instead of in-thread; see
   * sqlite-batch-writer.ts.
   */
  sqliteWriterThread: boolean;
  /** SQLite: WAL checkpoints on a thread instead of on the event loop. */
  sqliteCheckpointThread: boolean;
  /** The operator console at /console (TOLLWAY_CONSOLE, default on) and how long its sign-in lasts. */
  console: { enabled: boolean; sessionMs: number };
  /** TOLLWAY_CORS_ORIGINS: cross-origin access for browser clients; null (the default) = off. */
  cors: CorsConfig | null;
  /** TOLLWAY_OIDC_*: single sign-on to the console (oidc-env.ts); null (the default) = off. */
  oidc: OidcConfig | null;
  /**
   * TOLLWAY_TRUST_PROXY: the proxies whose X-Forwarded-For names the client (trust-proxy.ts); null (the default) =
   * none.
   */
  trustProxy: TrustProxy;
  /** SQLite file stores: heavy admin reads (bills, lists, reconciliation) on a read-only connection in a thread. */
  sqliteReadThread: boolean;
  /** Request-log rows older than this many days are deleted by the retention sweeper (0 = kept forever). */
  requestLogRetentionDays: number;
  /** Bearer token of GET /metrics (the admin key is taken too). */
  metricsToken: string | undefined;
  /** OpenTelemetry tracing from the standard OTEL_* variables (otel-env.ts); null: off. */
  tracing: TracingConfig | null;
  /** Limit counters: how many client addresses wrong admin keys are counted for at once; the Redis key prefix. */
  limits: { addressTableSize: number; redisPrefix: string };
}

export interface CallbackConfig {
  /** Dispatcher wake-up interval (ms). */
  tickMs: number;
  /** First retry delay (ms); doubles per failed attempt, capped at 1 hour. */
  backoffBaseMs: number;
  /** Attempts before a callback is given up (state `failed`). */
  maxAttempts: number;
  /** How long a rotated-out callback secret keeps signing too, when the rotation names no grace_ms. */
  secretGraceMs: number;
  /** TOLLWAY_CALLBACK_SECRET is set: no longer read (each token has its own secret); a start-up warning says so. */
  retiredSecretSet: boolean;
}

/** TOLLWAY_TASK_* over the engine's defaults (the fields are documented in src/tasks/options.ts). */
export type TaskConfig = TaskEngineOptions;

/** The longest a rotated-out callback secret may keep signing: a week. */
export const MAX_CALLBACK_GRACE_MS = 7 * 86_400_000;

const fail = (message: string): never => {
  throw new ConfigError(message);
};

/** sqlite:<path> or postgres://user[:password]@host[:port]/db; the password never appears in the message. */
function checkDatabaseUrl(url: string): void {
  const shown = url.replace(/:[^:@/]*@/, ':***@');
  if (url.startsWith('sqlite:')) {
    if (url.replace(/^sqlite:(\/\/)?/, '').trim() === '')
      throw new ConfigError('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/tollway.db');
    return;
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    let host = '';
    try {
      host = new URL(url).hostname;
    } catch {
      host = '';
    }
    if (!host) throw new ConfigError(`DATABASE_URL is not a valid postgres:// URL, got "${shown}"`);
    return;
  }
  throw new ConfigError(`DATABASE_URL must start with sqlite: or postgres://, got "${shown}"`);
}

/** An example's placeholder key ("…change-me…", "changeme", "placeholder"): known to everyone who read the example. */
function isPlaceholder(key: string): boolean {
  return /change[-_ ]?me|placeholder/i.test(key);
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = resolve(env.TOLLWAY_DATA_DIR?.trim() || './data');
  const databaseUrl = (env.DATABASE_URL ?? '').trim() || `sqlite:${resolve(dataDir, 'tollway.db')}`;
  checkDatabaseUrl(databaseUrl);
  const upstreams = envUpstreams(env);

  const adminKey = env.TOLLWAY_ADMIN_KEY?.trim() || undefined;
  if (adminKey !== undefined && adminKey.length < 16)
    throw new ConfigError('TOLLWAY_ADMIN_KEY must be at least 16 characters');
  if (adminKey !== undefined && isPlaceholder(adminKey)) {
    throw new ConfigError(
      'TOLLWAY_ADMIN_KEY is a placeholder from an example, which anyone who read it knows: set a key of your own (e.g. `openssl rand -hex 24`)',
    );
  }
  const secret = env.TOLLWAY_SECRET?.trim() || undefined;
  if (secret !== undefined && secret.length < 16)
    throw new ConfigError('TOLLWAY_SECRET must be at least 16 characters');

  const publicUrl = env.TOLLWAY_PUBLIC_URL?.trim() ? urlVar(env, 'TOLLWAY_PUBLIC_URL', '') : undefined;
  const extraHosts = (env.TOLLWAY_RESULT_HOSTS ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);

  const host = env.HOST?.trim() || '0.0.0.0';
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal,error,warn,info,debug,trace,silent, got "${logLevel}"`);
  }
  return {
    port: intVar(env, 'PORT', 8080, 0, 65535),
    host,
    databaseUrl,
    adminKey,
    secret,
    upstreams,
    publicUrl,
    redisUrl: env.REDIS_URL?.trim() || undefined,
    refreshMs: intVar(env, 'TOLLWAY_REFRESH_MS', 10_000, 0, 3_600_000),
    logLevel,
    bodyLimit: intVar(env, 'TOLLWAY_BODY_LIMIT', 20 * 1024 * 1024, 1024, 512 * 1024 * 1024),
    uploadBodyLimit: intVar(env, 'TOLLWAY_UPLOAD_BODY_LIMIT', 64 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    resultHosts: [...DEFAULT_RESULT_HOSTS, ...extraHosts],
    allowPrivateNetwork: boolVar(env, 'TOLLWAY_ALLOW_PRIVATE_NETWORK'),
    trustedResultOrigins: [],
    simTaskMs: intVar(env, 'TOLLWAY_SIM_TASK_MS', 5000, 0, 3_600_000),
    simLimits: simLimitsConfig(env),
    tasks: taskConfig(env),
    capacity: {
      queueWaitMs: intVar(env, 'TOLLWAY_QUEUE_WAIT_MS', 5_000, 0, 600_000),
      readLimitsMs: intVar(env, 'TOLLWAY_UPSTREAM_LIMITS_READ_MS', 300_000, 0, 86_400_000),
      learn: boolVar(env, 'TOLLWAY_CAPACITY_LEARN', true),
    },
    callbacks: {
      tickMs: intVar(env, 'TOLLWAY_CALLBACK_TICK_MS', 1000, 10, 600_000),
      backoffBaseMs: intVar(env, 'TOLLWAY_CALLBACK_BACKOFF_MS', 5000, 10, 3_600_000),
      maxAttempts: intVar(env, 'TOLLWAY_CALLBACK_MAX_ATTEMPTS', 8, 1, 100),
      secretGraceMs: intVar(env, 'TOLLWAY_CALLBACK_SECRET_GRACE_MS', 86_400_000, 0, MAX_CALLBACK_GRACE_MS),
      retiredSecretSet: Boolean(env.TOLLWAY_CALLBACK_SECRET?.trim()),
    },
    alerts: alertConfig(env),
    stripe: stripeConfig(env),
    simPort: intVar(env, 'TOLLWAY_SIM_PORT', 0, 0, 65535),
    dataDir,
    catalogueFile: env.TOLLWAY_CATALOGUE_FILE?.trim() ? resolve(env.TOLLWAY_CATALOGUE_FILE.trim()) : undefined,
    drainMs: intVar(env, 'TOLLWAY_DRAIN_MS', 30_000, 0, 3_600_000),
    requestTimeoutMs: intVar(env, 'TOLLWAY_REQUEST_TIMEOUT_MS', 60_000, 1_000, 3_600_000),
    clientStallMs: intVar(env, 'TOLLWAY_CLIENT_STALL_TIMEOUT_MS', 120_000, 100, 3_600_000),
    reservationTtlMs: intVar(env, 'TOLLWAY_RESERVATION_TTL_MS', 1_800_000, 1_000, 86_400_000),
    upstreamTimeouts: {
      connectMs: intVar(env, 'TOLLWAY_UPSTREAM_CONNECT_TIMEOUT_MS', 5_000, 100, 600_000),
      headersMs: intVar(env, 'TOLLWAY_UPSTREAM_FIRST_BYTE_TIMEOUT_MS', 120_000, 100, 3_600_000),
      bodyIdleMs: intVar(env, 'TOLLWAY_UPSTREAM_IDLE_TIMEOUT_MS', 60_000, 100, 3_600_000),
    },
    heapGrowingPercent: intVar(env, 'TOLLWAY_HEAP_GROWING_PERCENT', 100, 0, 400),
    sqliteWriterThread: boolVar(env, 'TOLLWAY_SQLITE_WRITER_THREAD', false),
    sqliteReadThread: boolVar(env, 'TOLLWAY_SQLITE_READ_THREAD', true),
    requestLogRetentionDays: intVar(env, 'TOLLWAY_REQUEST_LOG_RETENTION_DAYS', 90, 0, 36_500),
    sqliteCheckpointThread: boolVar(env, 'TOLLWAY_SQLITE_CHECKPOINT_THREAD', true),
    console: {
      enabled: boolVar(env, 'TOLLWAY_CONSOLE', true),
      sessionMs: intVar(env, 'TOLLWAY_CONSOLE_SESSION_MS', 8 * 3600_000, 60_000, 30 * 24 * 3600_000),
    },
    cors: corsVar(env),
    oidc: oidcConfig(env, publicUrl),
    trustProxy: parseTrustProxy(env.TOLLWAY_TRUST_PROXY, fail),
    metricsToken: secretVar(env, 'TOLLWAY_METRICS_TOKEN'),
    tracing: tracingConfig(env, fail),
    limits: {
      addressTableSize: intVar(env, 'TOLLWAY_ADDRESS_TABLE_SIZE', 100_000, 10, 10_000_000),
      redisPrefix: 'tollway:',
    },
  };
}

/** True when no upstream credentials are configured: demo mode runs the built-in simulator. */
export function isDemoMode(c: Config): boolean {
  return !Object.values(c.upstreams).some(hasEnvKeys);
}
