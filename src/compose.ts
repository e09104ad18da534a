// The composition root: every long-lived object (store, repos, meter, caches, upstream clients, adapters, task
// drivers, dispatchers, the HTTP app) is built here and nowhere else. Used by main.ts, the CLI and the tests.
import { clientTokenCheck } from './core/console/sessions.ts';
import type { FastifyInstance } from 'fastify';
import pino, { type DestinationStream, type Logger } from 'pino';
import { dashscopeTextAdapter } from './adapters/dashscope/compat-chat-adapter.ts';
import { DashscopeVideoDriver, DASHSCOPE_VIDEO_TASK_KIND } from './adapters/dashscope/video-driver.ts';
import { UpstreamClient } from './adapters/http-client.ts';
import { KlingClient } from './adapters/kling/client.ts';
import { ChannelProber } from './adapters/probe.ts';
import { KlingJwtSigner } from './adapters/kling/jwt.ts';
import { KlingTaskDriver, type SubmitVia } from './adapters/kling/task-driver.ts';
import { SecretBox } from './auth/secret-box.ts';
import { TokenAuth } from './auth/token-auth.ts';
import { LocalBus, RedisBus, type ClusterBus, type ClusterEvent } from './cluster/cluster-bus.ts';
import type { Catalogue } from './catalogue/catalogue.ts';
import type { Config } from './config/config.ts';
import type { AdminDeps } from './core/admin/deps.ts';
import { redactSecrets, registerSecret } from './errors/redact.ts';
import type { GatewayDeps } from './core/deps.ts';
import type { VidxContext } from './core/vidx/context.ts';
import { MemoryCounters, RateLimiter, RedisCounters, WINDOW_MS } from './limits/rate-limiter.ts';
import { loadCatalogue } from './metering/catalogue-source.ts';
import { StoreMeter } from './metering/meter.ts';
import type { LedgerRow } from './metering/ledger-row.ts';
import { ChannelRegistry } from './routing/channel-registry.ts';
import { CircuitBreakers } from './routing/circuit-breaker.ts';
import { stdoutSink } from './runtime/log-sink.ts';
import { GatewayMetrics } from './observe/metrics.ts';
import { startTracing } from './observe/tracing.ts';
import { AuditRepo } from './store/repos/audit.ts';
import { ChannelsRepo } from './store/repos/channels.ts';
import { ConsoleSessionsRepo } from './store/repos/console-sessions.ts';
import { GaugesRepo } from './store/repos/gauges.ts';
import { SlotQueueRepo } from './store/repos/slot-queue.ts';
import { slotLimitOf } from './routing/task-slots.ts';
import { taskSubmitVia } from './core/task-submit.ts';
import { LedgerRepo } from './store/repos/ledger.ts';
import { RequestLogRepo, RequestLogWriter } from './store/repos/request-log.ts';
import { RequestStatsRepo } from './store/repos/request-stats.ts';
import { ReconcileRepo } from './store/repos/reconcile.ts';
import { SessionsRepo } from './store/repos/sessions.ts';
import { TasksRepo } from './store/repos/tasks.ts';
import { TokensRepo } from './store/repos/tokens.ts';
import { AccountsRepo } from './store/repos/accounts.ts';
import { PriceGroupsRepo } from './store/repos/price-groups.ts';
import { PriceGroups } from './metering/price-groups.ts';
import { openStore, type Store } from './store/store.ts';
import { sweepRequestLog } from './store/retention.ts';
import { CallbackDispatcher } from './tasks/callbacks.ts';
import { TokenCallbackSigner } from './tasks/callback-signing.ts';
import { TaskEngine } from './tasks/engine.ts';
import { PollerThread } from './tasks/poller-thread.ts';
import { MemoryQueryBudget, newBudgetMemory, RedisQueryBudget } from './limits/query-budget.ts';

export interface GatewayOptions {
  /** Where log lines go (tests capture them); default stdout. */
  logStream?: DestinationStream;
  adminKey: string;
  secret: string;
  pgSchema?: string;
  /** A store opened by the caller (and closed by it). */
  store?: Store;
  /** The meter's clock (budget periods); tests set it. Default Date.now. */
  clock?: () => number;
}

export interface Gateway {
  app: FastifyInstance;
  deps: GatewayDeps;
  /** The background task work (pause/resume); null on an API-only instance. */
  poller: BackgroundPoller | null;
  close(): Promise<void>;
}

export function makeLogger(level: string, stream: DestinationStream = stdoutSink()): Logger {
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
    stream,
  );
}

function registerSecrets(config: Config, secrets: string[]): void {
  for (const s of [...secrets, config.dashscope.apiKey, config.kling.secretKey, config.metricsToken, ...Object.values(config.tracing?.headers ?? {})]) registerSecret(s);
}

function buildRepos(store: Store): GatewayDeps['repos'] {
  const { db, reads } = store;
  // The heavy reads (bills, lists, reconciliation) go to `reads`: off the event loop on a SQLite file store.
  return { tokens: new TokensRepo(db), channels: new ChannelsRepo(db), audit: new AuditRepo(db), ledger: new LedgerRepo(reads), requestLog: new RequestLogRepo(reads, db), reconcile: new ReconcileRepo(reads), consoleSessions: new ConsoleSessionsRepo(db), requestStats: new RequestStatsRepo(db, reads), gauges: new GaugesRepo(reads), accounts: new AccountsRepo(db), priceGroups: new PriceGroupsRepo(db) };
}

/** The CLI's objects: the store, repos and catalogue for core/admin operations, without caches or HTTP. */
export async function composeAdmin(config: Config, secret: string): Promise<{ deps: AdminDeps; close(): Promise<void> }> {
  registerSecrets(config, [secret]);
  const store = await openStore(config.databaseUrl, { readThread: config.sqliteReadThread });
  const catalogue = await loadCatalogue(store.db, config.catalogueFile);
  // A one-shot command keeps no caches; running instances see its changes within their refresh interval.
  const deps: AdminDeps = { repos: buildRepos(store), store, box: new SecretBox(secret), catalogue, applyChange: async () => undefined };
  return { deps, close: () => store.close() };
}

/**
 * A Redis client whose connection errors reach the log (once per outage, not per reconnect attempt) instead of
 * ioredis's "Unhandled error event" on stderr; it keeps reconnecting on its own.
 */
async function redisClient(url: string, logger: Logger, role: string, opts: { maxRetriesPerRequest?: number } = {}): Promise<import('ioredis').Redis> {
  const { Redis } = await import('ioredis');
  const r = new Redis(url, opts);
  let down = false;
  r.on('error', (e: unknown) => {
    if (!down) logger.warn({ err: String(e), role }, 'Redis is not reachable; reconnecting');
    down = true;
  });
  r.on('ready', () => {
    if (down) logger.info({ role }, 'Redis is reachable again');
    down = false;
  });
  return r;
}

async function redisBus(url: string, logger: Logger): Promise<ClusterBus> {
  const bus = new RedisBus(await redisClient(url, logger, 'cluster-publish', { maxRetriesPerRequest: 2 }), await redisClient(url, logger, 'cluster-subscribe'), (e) => logger.warn({ err: String(e) }, 'cluster bus error'));
  await bus.whenReady();
  return bus;
}

/** An admin change, made here or announced by another instance, applied to this instance's caches. */
async function applyLocally(deps: GatewayDeps, e: ClusterEvent): Promise<void> {
  if (e.kind === 'token-revoked') deps.tokenAuth.invalidateHash(e.hash);
  else if (e.kind === 'token-changed') for (const h of e.hashes) deps.tokenAuth.invalidateHash(h);
  else if (e.kind === 'account-changed') deps.tokenAuth.invalidateAccount(e.id);
  else if (e.kind === 'price-groups-changed') await deps.priceGroups.reload();
  else if (e.kind === 'channels-changed') await deps.channels.reload();
  // GatewayDeps.catalogue is reassigned: readers take deps.catalogue at call time (the meter through a getter).
  else deps.catalogue = await loadCatalogue(deps.store.db, deps.config.catalogueFile, deps.catalogue);
}

/** Apply other instances' admin changes: at once from the bus, and by a periodic re-read as the fallback. */
function keepCachesCoherent(deps: GatewayDeps): () => void {
  const warn = (e: unknown) => deps.logger.warn({ err: String(e) }, 'cache refresh failed');
  deps.cluster.onEvent((e) => applyLocally(deps, e).catch(warn));
  if (deps.config.refreshMs <= 0) return () => undefined;
  const timer = setInterval(() => {
    applyLocally(deps, { kind: 'channels-changed' }).catch(warn);
    applyLocally(deps, { kind: 'catalogue-changed' }).catch(warn);
    applyLocally(deps, { kind: 'price-groups-changed' }).catch(warn);
  }, deps.config.refreshMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** A charge the store did not take, on the log line that reports it: every field, to be entered by hand. */
function chargeOnLog(r: LedgerRow) {
  return { key: r.key, token_id: r.tokenId, model: r.model, kind: r.kind, amount: r.charge.amount, quantities: r.charge.quantities, unit_prices: r.charge.unitPrices, request_id: r.requestId, task_id: r.taskId, upstream_request_id: r.upstreamRequestId, created_at: r.createdAt };
}

/** The meter and the request-log writer: both group-commit through the SQLite batch writer when there is one. */
function composeWriters(store: Store, audit: AuditRepo, catalogue: () => Catalogue, logger: Logger, priceGroups: PriceGroups, clock?: () => number): { meter: StoreMeter; requestLog: RequestLogWriter } {
  const meter = new StoreMeter(store.db, catalogue, {
    priceGroups,
    ...(clock ? { now: clock } : {}),
    batchWriter: store.batchWriter,
    onError: (e, queued) => logger.error({ err: String(e), queued }, 'ledger batch write failed; charges stay queued and are retried'),
    // Every field of the refused charge, so the operator can enter it by hand: it is not retried.
    onRejected: (rows, e) => logger.error({ err: String(e), charges: rows.map(chargeOnLog) }, 'ledger charges refused by the store; set aside, not billed'),
    onClamped: (r) => {
      const detail = { key: r.key, token_id: r.tokenId, model: r.model, amount: r.charge.amount, quantities: r.charge.quantities };
      logger.warn(detail, 'charge clamped to the largest amount one charge may carry');
      audit.write({ actor: 'meter', action: 'charge.clamped', target: r.key, detail, requestId: r.requestId }).catch((e: unknown) => logger.error({ err: String(e) }, 'audit write failed'));
    },
  });
  const requestLog = new RequestLogWriter(store.db, {
    batchWriter: store.batchWriter,
    onError: (e) => logger.error({ err: String(e) }, 'request log write failed'),
    onRejected: (rows, e) => logger.error({ err: String(e), request_ids: rows.map((r) => r.requestId) }, 'request-log rows refused by the store; set aside'),
  });
  return { meter, requestLog };
}

/** Store-backed objects and caches: everything GatewayDeps holds. */
async function composeDeps(config: Config, opts: GatewayOptions, store: Store, logger: Logger, queryBudgetMemory = newBudgetMemory()): Promise<GatewayDeps> {
  const box = new SecretBox(opts.secret);
  const repos = buildRepos(store);
  const channels = new ChannelRegistry(repos.channels, box);
  await channels.reload();
  const catalogue = await loadCatalogue(store.db, config.catalogueFile);
  const priceGroups = new PriceGroups(() => repos.priceGroups.all());
  await priceGroups.reload();
  const { meter, requestLog } = composeWriters(store, repos.audit, () => deps.catalogue, logger, priceGroups, opts.clock);
  const cluster = config.redisUrl ? await redisBus(config.redisUrl, logger) : new LocalBus();
  const upstream = new UpstreamClient(config.upstreamTimeouts);
  const breakers = new CircuitBreakers();
  const metrics = new GatewayMetrics({ channels, breakers, ledger: meter.backlog, requestLog: requestLog.backlog, gauges: repos.gauges, logger });
  const tokenAuth = new TokenAuth(repos.tokens);
  // ioredis is loaded only when Redis is configured (memory: a single instance does not carry it).
  const limiter = new RateLimiter(
    config.redisUrl ? new RedisCounters(await redisClient(config.redisUrl, logger, 'limits', { maxRetriesPerRequest: 2 })) : new MemoryCounters(),
    WINDOW_MS,
    (e) => logger.warn({ err: String(e) }, 'rate-limit counters unavailable; request admitted uncounted'),
  );
  const budgetOpts = { qps: config.tasks.dashscopeQueryQps };
  const localBudget = new MemoryQueryBudget(budgetOpts, queryBudgetMemory);
  // With Redis every instance shares each upstream account's query budget; while Redis is away, this process's stands in.
  const budget = config.redisUrl
    ? new RedisQueryBudget(await redisClient(config.redisUrl, logger, 'query-budget', { maxRetriesPerRequest: 1 }), budgetOpts, localBudget, (e) => logger.warn({ err: String(e) }, 'query budget in Redis unavailable; this instance keeps its own'))
    : localBudget;
  const deps: GatewayDeps = {
    config,
    store,
    logger,
    adminKey: opts.adminKey,
    adminKeys: { adminKey: opts.adminKey, limiter, isClientToken: clientTokenCheck(tokenAuth) },
    box,
    catalogue,
    channels,
    tokenAuth,
    priceGroups,
    repos,
    requestLog,
    meter,
    upstream,
    tasks: new TaskEngine({ repo: new TasksRepo(store.db, store.dialect), meter: () => meter, channels, logger, options: config.tasks, budget, slots: { repo: new SlotQueueRepo(store.db), limitOf: (queue) => slotLimitOf(channels.all(), queue) } }),
    queryBudgetMemory,
    breakers,
    prober: new ChannelProber(upstream, new KlingClient(upstream, new KlingJwtSigner())),
    limiter,
    cluster,
    applyChange: async (e) => {
      await applyLocally(deps, e);
      await cluster.publish(e);
    },
    metrics,
    tracing: await startTracing(config.tracing, logger),
  };
  return deps;
}

/** The DashScope video driver: polls /v1/videos tasks; the price basis says which seconds are charged. */
function registerVideoDriver(deps: GatewayDeps): void {
  const basisOf = (billingModel: string) => {
    const e = deps.catalogue.get(billingModel);
    return e && e.price.unit === 'video-second' ? e.price.basis : 'output';
  };
  deps.tasks.registerDriver(DASHSCOPE_VIDEO_TASK_KIND, new DashscopeVideoDriver(deps.upstream, basisOf));
}

/** Family A: the Kling client (JWT signer inside), selection sessions, client callbacks and the Kling task drivers. */
function composeVidx(deps: GatewayDeps, views: typeof import('./core/vidx/views.ts')): VidxContext {
  const client = new KlingClient(deps.upstream, new KlingJwtSigner());
  const cb = deps.config.callbacks;
  const dispatcher = new CallbackDispatcher({
    db: deps.store.db,
    logger: deps.logger,
    render: views.taskView,
    signer: new TokenCallbackSigner(deps.repos.tokens, deps.box),
    options: {
      tickMs: cb.tickMs,
      backoffBaseMs: cb.backoffBaseMs,
      maxAttempts: cb.maxAttempts,
      allowPrivateNetwork: deps.config.allowPrivateNetwork,
    },
  });
  const { KINDS, storedKinds } = views;
  const klingChannels = () => deps.channels.all().filter((c) => c.kind === 'kling');
  const submitVia = taskSubmitVia(deps);
  // One driver per stored kind: a path's tasks created on another upstream endpoint (o1 text2video) are asked there.
  for (const kind of Object.values(KINDS)) {
    for (const s of storedKinds(kind)) deps.tasks.registerDriver(s.kind, new KlingTaskDriver(client, s.endpoint, klingChannels, submitVia));
  }
  const callbackKey = deps.box.derive('tollway:kling-callback-url:v1');
  return { deps, client, sessions: new SessionsRepo(deps.store.db), callbackKey, kick: () => dispatcher.kick(), dispatcher };
}

/** The background task work this process runs: none, in process, or on its own thread. Start/stop pause it. */
export interface BackgroundPoller {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A gateway: its deps, every task driver, the HTTP app; the poller and client callbacks run when enabled. */
export async function composeGateway(config: Config, opts: GatewayOptions): Promise<Gateway> {
  registerSecrets(config, [opts.adminKey, opts.secret]);
  // Asynchronous stdout (runtime/log-sink.ts): a line never blocks the event loop; what is queued is written on exit.
  const sink = opts.logStream ?? stdoutSink();
  const logger = makeLogger(config.logLevel, sink);
  const store = opts.store ?? (await openStore(config.databaseUrl, { writerThread: config.sqliteWriterThread, checkpointThread: config.sqliteCheckpointThread, readThread: config.sqliteReadThread, ...(opts.pgSchema ? { pgSchema: opts.pgSchema } : {}) }));
  const deps = await composeDeps(config, opts, store, logger);
  const stopRefresh = keepCachesCoherent(deps);
  // The HTTP modules load only here: the CLI composes the admin core alone and never carries Fastify.
  const [{ buildApp }, views] = await Promise.all([import('./http/app.ts'), import('./core/vidx/views.ts')]);
  registerVideoDriver(deps);
  const vidx = composeVidx(deps, views);
  const app = await buildApp(deps, { text: dashscopeTextAdapter(deps.upstream), vidx });
  // Every driver is registered: the poller and the client-callback dispatcher may start.
  const poller = backgroundPoller(deps, vidx, opts, sink);
  await poller?.start();
  const stopReaper = reapReservations(deps);
  const stopSweeper = sweepRequestLogPeriodically(deps);
  const own = { dispatcher: vidx.dispatcher, poller, stopRefresh: () => (stopRefresh(), stopReaper()), stopSweeper, store: opts.store ? null : store };
  return { app, deps, poller, close: () => closeGateway(app, deps, own) };
}

/**
 * The poller and client callbacks: on a thread with its own store connection (TOLLWAY_TASK_POLLER_THREAD, not for
 * an in-memory SQLite store, which no other connection can see), else on the event loop; null for an API-only
 * instance (TOLLWAY_TASK_POLLER=false).
 */
function backgroundPoller(deps: GatewayDeps, vidx: VidxContext, opts: GatewayOptions, sink: DestinationStream): BackgroundPoller | null {
  const { dispatcher } = vidx;
  const { config, store } = deps;
  if (!config.tasks.pollerEnabled) return null;
  if (config.tasks.pollerThread && !/^sqlite:(\/\/)?:memory:$/.test(store.location.url)) {
    // The thread composes its own objects: no tracing there (its spans would have no request to belong to).
    const thread = new PollerThread({ config: { ...config, tracing: null }, adminKey: opts.adminKey, secret: opts.secret, location: store.location, queryBudgetMemory: deps.queryBudgetMemory }, sink, deps.logger);
    const applyChange = deps.applyChange;
    deps.applyChange = async (e) => {
      await applyChange(e);
      thread.publish(e);
    };
    // This process's dispatcher does not run: a task finished here (a client's read, an upstream callback) has its
    // client callback sent by the thread's.
    vidx.kick = () => thread.kick();
    return thread;
  }
  return {
    start: async () => {
      deps.tasks.start();
      dispatcher.start();
    },
    stop: async () => {
      await dispatcher.stop();
      await deps.tasks.stop();
    },
  };
}

/** PostgreSQL connections of an instance's poller thread (besides the instance's own pool of 10). */
export const POLLER_PG_POOL = 4;

/**
 * The poller thread's objects (tasks/poller-worker.ts): deps on its own connection to the gateway's store, every
 * task driver, the poller and the client-callback dispatcher, running; no HTTP.
 */
export async function composePoller(config: Config, opts: { adminKey: string; secret: string; location: { url: string; pgSchema?: string }; logStream: DestinationStream; queryBudgetMemory: SharedArrayBuffer }): Promise<{ apply(e: ClusterEvent): Promise<void>; kick(): void; close(): Promise<void> }> {
  registerSecrets(config, [opts.adminKey, opts.secret]);
  const logger = makeLogger(config.logLevel, opts.logStream);
  const { url, pgSchema } = opts.location;
  // A small PostgreSQL pool: the poller's statements are few and short (docs/operations.md counts it per instance).
  const store = await openStore(url, { migrate: false, readThread: false, pgPoolMax: POLLER_PG_POOL, ...(pgSchema ? { pgSchema } : {}) });
  const deps = await composeDeps(config, { adminKey: opts.adminKey, secret: opts.secret }, store, logger, opts.queryBudgetMemory);
  const stopRefresh = keepCachesCoherent(deps);
  registerVideoDriver(deps);
  const vidx = composeVidx(deps, await import('./core/vidx/views.ts'));
  deps.tasks.start();
  vidx.dispatcher.start();
  const warn = (e: unknown) => logger.warn({ err: String(e) }, 'cache refresh failed');
  return {
    apply: (e) => applyLocally(deps, e).catch(warn),
    kick: () => vidx.dispatcher.kick(),
    close: async () => {
      await vidx.dispatcher.stop();
      await deps.tasks.stop();
      await deps.meter.flush();
      stopRefresh();
      await deps.upstream.close();
      await deps.limiter.close();
      await deps.cluster.close();
      await store.close();
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
    },
  };
}

/** Reservations a dead instance left open go back to their tokens' quotas once older than their time to live. */
function reapReservations(deps: GatewayDeps): () => void {
  const ttl = deps.config.reservationTtlMs;
  const reap = () =>
    deps.meter.reapReservations(ttl).then(
      (n) => n > 0 && deps.logger.warn({ released: n }, 'reservations left open by a stopped instance released'),
      (e: unknown) => deps.logger.warn({ err: String(e) }, 'reservation reaper failed'),
    );
  void reap();
  const timer = setInterval(reap, Math.min(60_000, ttl));
  timer.unref();
  return () => clearInterval(timer);
}

/** The request log's retention (TOLLWAY_REQUEST_LOG_RETENTION_DAYS): a sweep at start, then hourly. The stop waits for a sweep under way. */
function sweepRequestLogPeriodically(deps: GatewayDeps): () => Promise<void> {
  const days = deps.config.requestLogRetentionDays;
  if (days <= 0) return async () => undefined;
  let running: Promise<unknown> | null = null;
  const sweep = () => {
    running ??= sweepRequestLog(deps.repos.requestLog, { days })
      .then(
        (n) => n > 0 && deps.logger.info({ deleted: n, retention_days: days }, 'request-log rows past their retention deleted'),
        (e: unknown) => deps.logger.warn({ err: String(e) }, 'request-log retention sweep failed; retried at the next sweep'),
      )
      .finally(() => (running = null));
  };
  const first = setTimeout(sweep, 1_000);
  const timer = setInterval(sweep, 3_600_000);
  first.unref();
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}

/** What closing stops besides deps: the dispatcher, the cache refresh, and the store unless the caller owns it. */
interface Owned {
  dispatcher: CallbackDispatcher;
  poller: BackgroundPoller | null;
  stopRefresh: () => void;
  stopSweeper: () => Promise<void>;
  store: Store | null;
}

/**
 * How long a shutdown keeps trying to write the queued ledger and request-log rows after the drain: a store that
 * fails for a moment is retried meanwhile (main.ts gives the process this long past TOLLWAY_DRAIN_MS).
 */
export const FINAL_WRITES_MS = 3_000;
/** After the task work stopped: what its last polls and reads queued. */
const LAST_WRITES_MS = 1_000;
/** How long a shutdown may write after its drain: the two rounds above (main.ts's hard exit waits this long). */
export const SHUTDOWN_WRITES_MS = FINAL_WRITES_MS + LAST_WRITES_MS;
const FINAL_RETRY_MS = 100;

type QueueDeps = Pick<GatewayDeps, 'meter' | 'requestLog' | 'logger'>;

/**
 * Every queued row written before the store closes, retried until `limitMs` has passed — a flush that hangs (a
 * database that stopped answering) counts against it too; what a store that never came back leaves is reported
 * on the log (reportUnwritten), not dropped silently.
 */
export async function writeQueued(deps: QueueDeps, limitMs = FINAL_WRITES_MS): Promise<void> {
  const until = Date.now() + limitMs;
  const timeLeft = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)).unref());
  for (;;) {
    await Promise.race([Promise.all([deps.meter.flush(), deps.requestLog.flush()]), timeLeft(until - Date.now())]);
    if (deps.meter.unwritten().length === 0 && deps.requestLog.unwritten().length === 0) return;
    if (Date.now() >= until) break;
    await timeLeft(Math.min(FINAL_RETRY_MS, until - Date.now()));
  }
  reportUnwritten(deps);
}

/**
 * What is still queued, on the log: each charge in full — to be entered by hand — and the request-log ids. Also
 * called by the process's hard exit (main.ts), so an exit that cuts the shutdown short still leaves the record.
 */
export function reportUnwritten(deps: QueueDeps): void {
  const charges = deps.meter.unwritten();
  if (charges.length > 0) deps.logger.error({ charges: charges.map(chargeOnLog) }, 'ledger charges not written at shutdown (the store did not take them); not billed');
  const logRows = deps.requestLog.unwritten();
  if (logRows.length > 0) deps.logger.error({ request_ids: logRows.map((r) => r.requestId) }, 'request-log rows not written at shutdown');
}

async function closeGateway(app: FastifyInstance, deps: GatewayDeps, own: Owned): Promise<void> {
  // Drain in-flight requests and streams, but bounded: a connection still busy after drainMs (a client that
  // never finishes its body, a stuck upstream) is cut so shutdown always completes.
  const force = setTimeout(() => app.server.closeAllConnections(), deps.config.drainMs);
  force.unref();
  await app.close().finally(() => clearTimeout(force));
  // The drained requests' charges first: stopping the task work below can wait on slow upstream polls.
  await writeQueued(deps);
  await own.poller?.stop();
  await own.dispatcher.stop();
  await deps.tasks.stop();
  // What those last polls and reads queued.
  await writeQueued(deps, LAST_WRITES_MS);
  await deps.upstream.close();
  await deps.limiter.close();
  own.stopRefresh();
  await own.stopSweeper();
  await deps.cluster.close();
  await own.store?.close();
  // The spans of the drained requests are sent before the process exits.
  await deps.tracing?.shutdown().catch((e: unknown) => deps.logger.warn({ err: String(e) }, 'tracing: last spans not sent'));
  // The last lines (the drain's access lines included) reach stdout before the process exits.
  await new Promise<void>((resolve) => deps.logger.flush(() => resolve()));
}
