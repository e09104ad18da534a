// Builds a complete gateway (store, repos, caches, app) from a Config. Used by main.ts and tests.
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { stdoutSink } from './runtime/log-sink.ts';
import { SecretBox } from './auth/secret-box.ts';
import { TokenAuth } from './auth/token-auth.ts';
import type { Catalogue } from './catalogue/catalogue.ts';
import { loadCatalogue as loadCatalogueLayers } from './metering/catalogue-source.ts';
import type { Config } from './config/config.ts';
import { redactSecrets, registerSecret } from './errors/redact.ts';
import { buildApp } from './http/app.ts';
import type { AppDeps } from './http/deps.ts';
import { UpstreamClient } from './adapters/http-client.ts';
import { MemoryCounters, RateLimiter, RedisCounters } from './limits/rate-limiter.ts';
import { CircuitBreakers } from './routing/circuit-breaker.ts';
import { StoreMeter } from './metering/meter.ts';
import { TasksRepo } from './store/repos/tasks.ts';
import { TaskEngine } from './tasks/engine.ts';
import { ChannelRegistry } from './routing/channel-registry.ts';
import { AuditRepo } from './store/repos/audit.ts';
import { ChannelsRepo } from './store/repos/channels.ts';
import { RequestLogWriter } from './store/repos/request-log.ts';
import { TokensRepo } from './store/repos/tokens.ts';
import { openStore, type Store } from './store/store.ts';
import { LocalBus, RedisBus, type ClusterBus } from './cluster/cluster-bus.ts';

export interface GatewayOptions {
  /** Where log lines go (tests capture them); default stdout. */
  logStream?: NodeJS.WritableStream;
  adminKey: string;
  secret: string;
  pgSchema?: string;
  store?: Store;
}

export interface Gateway {
  app: FastifyInstance;
  deps: AppDeps;
  close(): Promise<void>;
}

export function makeLogger(level: string, stream?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: null,
      // Last line of defence: secrets never reach a log line, whatever a caller logged.
      hooks: {
        streamWrite: (s: string) => redactSecrets(s),
      },
      redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'headers.authorization'], censor: '[redacted]' },
    },
    // Default: stdout written asynchronously (src/runtime/log-sink.ts): a line is handed to the kernel without
    // blocking the event loop, lines arriving meanwhile go out together in one write, and what is still queued is
    // written synchronously on exit. Plain process.stdout to a file or pipe is one synchronous write() per line.
    stream ?? stdoutSink(),
  );
}

/** Built-in catalogue ← TOLLWAY_CATALOGUE_FILE ← admin overrides (a bad file stops the start with a ConfigError). */
async function loadCatalogue(store: Store, config: Config): Promise<Catalogue> {
  return loadCatalogueLayers(store.db, config.catalogueFile);
}

async function redisBus(url: string, logger: Logger): Promise<ClusterBus> {
  const { Redis } = await import('ioredis');
  const bus = new RedisBus(new Redis(url, { maxRetriesPerRequest: 2 }), new Redis(url), (e) => logger.warn({ err: String(e) }, 'cluster bus error'));
  await bus.whenReady();
  return bus;
}

/** Apply other instances' admin changes: at once from the bus, and by a periodic re-read as the fallback. */
function keepCachesCoherent(deps: AppDeps): () => void {
  const reloadCatalogue = async () => {
    deps.catalogue = await loadCatalogueLayers(deps.store.db, deps.config.catalogueFile);
  };
  const warn = (e: unknown) => deps.logger.warn({ err: String(e) }, 'cache refresh failed');
  deps.cluster.onEvent((e) => {
    if (e.kind === 'token-revoked') deps.tokenAuth.invalidateHash(e.hash);
    else if (e.kind === 'channels-changed') deps.channels.reload().catch(warn);
    else reloadCatalogue().catch(warn);
  });
  if (deps.config.refreshMs <= 0) return () => undefined;
  const timer = setInterval(() => {
    deps.channels.reload().catch(warn);
    reloadCatalogue().catch(warn);
  }, deps.config.refreshMs);
  timer.unref();
  return () => clearInterval(timer);
}

export async function createGateway(config: Config, opts: GatewayOptions): Promise<Gateway> {
  registerSecret(opts.adminKey);
  registerSecret(opts.secret);
  registerSecret(config.dashscope.apiKey);
  registerSecret(config.kling.secretKey);
  const logger = makeLogger(config.logLevel, opts.logStream);
  const store = opts.store ?? (await openStore(config.databaseUrl, { writerThread: config.sqliteWriterThread, checkpointThread: config.sqliteCheckpointThread, ...(opts.pgSchema ? { pgSchema: opts.pgSchema } : {}) }));
  const box = new SecretBox(opts.secret);
  const repos = { tokens: new TokensRepo(store.db), channels: new ChannelsRepo(store.db), audit: new AuditRepo(store.db) };
  const channels = new ChannelRegistry(repos.channels, box);
  await channels.reload();
  const catalogue = await loadCatalogue(store, config);
  const deps: AppDeps = {
    config,
    store,
    logger,
    adminKey: opts.adminKey,
    box,
    catalogue,
    channels,
    tokenAuth: new TokenAuth(repos.tokens),
    repos,
    requestLog: new RequestLogWriter(store.db, {
      onError: (e) => logger.error({ err: String(e) }, 'request log write failed'),
      onRejected: (rows, e) => logger.error({ err: String(e), request_ids: rows.map((r) => r.requestId) }, 'request-log rows refused by the store; set aside'),
    }),
    meter: new StoreMeter(store.db, () => deps.catalogue, {
      onError: (e, queued) => logger.error({ err: String(e), queued }, 'ledger batch write failed; charges stay queued and are retried'),
      // Every field of the refused charge, so the operator can enter it by hand: it is not retried.
      onRejected: (rows, e) => logger.error({ err: String(e), charges: rows.map((r) => ({ key: r.key, token_id: r.tokenId, model: r.model, kind: r.kind, amount: r.charge.amount, quantities: r.charge.quantities, request_id: r.requestId, task_id: r.taskId, created_at: r.createdAt })) }, 'ledger charges refused by the store; set aside, not billed'),
      onClamped: (r) => {
        const detail = { key: r.key, token_id: r.tokenId, model: r.model, amount: r.charge.amount, quantities: r.charge.quantities };
        logger.warn(detail, 'charge clamped to the largest amount one charge may carry');
        repos.audit.write({ actor: 'meter', action: 'charge.clamped', target: r.key, detail, requestId: r.requestId }).catch((e: unknown) => logger.error({ err: String(e) }, 'audit write failed'));
      },
    }),
    upstream: new UpstreamClient(config.upstreamTimeouts),
    tasks: new TaskEngine({ repo: new TasksRepo(store.db, store.dialect), meter: () => deps.meter, channels, logger, options: config.tasks }),
    breakers: new CircuitBreakers(),
    // ioredis is loaded only when Redis is configured (memory: a single instance does not carry it).
    limiter: new RateLimiter(config.redisUrl ? new RedisCounters(new (await import('ioredis')).Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 })) : new MemoryCounters()),
    cluster: config.redisUrl ? await redisBus(config.redisUrl, logger) : new LocalBus(),
  };
  const stopRefresh = keepCachesCoherent(deps);
  const app = await buildApp(deps);
  // Drivers register while routes are built; the poller starts once they are all in.
  if (config.tasks.pollerEnabled) deps.tasks.start();
  return {
    app,
    deps,
    close: async () => {
      // Drain in-flight requests and streams, but bounded: a connection still busy after drainMs (a client
      // that never finishes its body, a stuck upstream) is cut so shutdown always completes.
      const force = setTimeout(() => app.server.closeAllConnections(), config.drainMs);
      force.unref();
      await app.close().finally(() => clearTimeout(force));
      await deps.tasks.stop();
      await deps.meter.flush();
      await deps.upstream.close();
      await deps.limiter.close();
      stopRefresh();
      await deps.cluster.close();
      if (!opts.store) await store.close();
      // The last lines (the drain's access lines included) reach stdout before the process exits.
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
    },
  };
}
