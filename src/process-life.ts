// Process life of a gateway and of its poller thread: what is opened (store, Redis connections, logger) before the
// objects are composed (compose.ts), what starts then and in which order, the timers, and the stop order with its
// final writes. main.ts, the poller thread's entry (poller-worker.ts) and the tests start gateways through here.
import type { FastifyInstance } from 'fastify';
import type { DestinationStream, Logger } from 'pino';
import type { ClusterEvent } from './cluster/cluster-bus.ts';
import {
  composeGateway,
  composePoller,
  type AlertLoops,
  type BackgroundPoller,
  type Keys,
  type Opened,
  type RedisClients,
} from './compose.ts';
import type { Config } from './config/config.ts';
import { applyChangeHere } from './core/admin/cache-changes.ts';
import type { GatewayDeps } from './core/deps.ts';
import { registerSecrets } from './config/secrets.ts';
import { newQueryRateMemory } from './limits/query-rate.ts';
import { makeLogger } from './runtime/logger.ts';
import { stdoutSink } from './runtime/log-sink.ts';
import { openStore, type Store } from './store/store.ts';
import { sweepRequestLog } from './store/retention.ts';
import { ledgerRowForLog } from './metering/ledger-row.ts';

export interface GatewayOptions extends Keys {
  /** Where log lines go (tests capture them); default stdout. */
  logStream?: DestinationStream;
  pgSchema?: string;
  /** A store opened by the caller (and closed by it). */
  store?: Store;
  /** The clock of the meter (budget periods) and the task engine (task times); tests set it. Default Date.now. */
  clock?: () => number;
}

export interface Gateway {
  app: FastifyInstance;
  deps: GatewayDeps;
  /** The background task work (pause/resume); null on an API-only instance. */
  poller: BackgroundPoller | null;
  /** The operator's alerts: their checks and webhook deliveries (tests run a round by hand). */
  alerts: AlertLoops;
  close(): Promise<void>;
}

/**
 * A Redis client whose connection errors reach the log (once per outage, not per reconnect attempt) instead of
 * ioredis's "Unhandled error event" on stderr; it keeps reconnecting on its own.
 */
async function redisClient(
  url: string,
  logger: Logger,
  role: string,
  opts: { maxRetriesPerRequest?: number; enableReadyCheck?: boolean } = {},
): Promise<import('ioredis').Redis> {
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

/** ioredis is loaded only when Redis is configured (a single instance does not carry it). */
async function openRedis(url: string | undefined, logger: Logger): Promise<RedisClients | null> {
  if (!url) return null;
  return {
    publish: await redisClient(url, logger, 'cluster-publish', { maxRetriesPerRequest: 2 }),
    // No ready check (INFO): the bus subscribes at once, and a subscribe sent while the check is still pending leaves
    // the client in subscriber mode before INFO's answer — the check then fails and no message is ever delivered.
    subscribe: await redisClient(url, logger, 'cluster-subscribe', { enableReadyCheck: false }),
    limits: await redisClient(url, logger, 'limits', { maxRetriesPerRequest: 2 }),
    queryRate: await redisClient(url, logger, 'query-rate', { maxRetriesPerRequest: 1 }),
  };
}

/** Apply other instances' admin changes: at once from the bus, and by a periodic re-read as the fallback. */
function keepCachesCoherent(deps: GatewayDeps): () => void {
  const warn = (e: unknown) => deps.logger.warn({ err: String(e) }, 'cache refresh failed');
  deps.cluster.onEvent((e) => applyChangeHere(deps, e).catch(warn));
  if (deps.config.refreshMs <= 0) return () => undefined;
  const timer = setInterval(() => {
    applyChangeHere(deps, { kind: 'channels-changed' }).catch(warn);
    applyChangeHere(deps, { kind: 'catalogue-changed' }).catch(warn);
    applyChangeHere(deps, { kind: 'price-groups-changed' }).catch(warn);
  }, deps.config.refreshMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Reservations a dead instance left open go back to their tokens' quotas once older than their time to live. */
function reapReservations(deps: GatewayDeps): () => void {
  const ttl = deps.config.reservationTtlMs;
  const reap = () =>
    // Each hold released is announced (hold.reaped) in the transaction that released it.
    deps.meter
      .reapReservations(ttl, (trx, h) =>
        deps.alerts
          .emit('hold.reaped', { key: h.key, token_id: h.tokenId, amount: h.amount, ttl_ms: ttl }, { within: trx })
          .then(() => undefined),
      )
      .then(
        (n) => n > 0 && deps.logger.warn({ released: n }, 'reservations left open by a stopped instance released'),
        (e: unknown) => deps.logger.warn({ err: String(e) }, 'reservation reaper failed'),
      );
  void reap();
  const timer = setInterval(reap, Math.min(60_000, ttl));
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The request log's retention (TOLLWAY_REQUEST_LOG_RETENTION_DAYS): a sweep at start, then hourly. The stop waits for a
 * sweep under way.
 */
function sweepRequestLogPeriodically(deps: GatewayDeps): () => Promise<void> {
  const days = deps.config.requestLogRetentionDays;
  if (days <= 0) return async () => undefined;
  let running: Promise<unknown> | null = null;
  const sweep = () => {
    running ??= sweepRequestLog(deps.repos.requestLog, { days })
      .then(
        (n) =>
          n > 0 &&
          deps.logger.info({ deleted: n, retention_days: days }, 'request-log rows past their retention deleted'),
        (e: unknown) =>
          deps.logger.warn({ err: String(e) }, 'request-log retention sweep failed; retried at the next sweep'),
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
  // The calls are done: what the allowances still hold goes back before the instance stops.
  await Promise.race([deps.meter.releaseAllowances(), timeLeft(until - Date.now())]);
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
  if (charges.length > 0)
    deps.logger.error(
      { charges: charges.map(ledgerRowForLog) },
      'ledger charges not written at shutdown (the store did not take them); not billed',
    );
  const logRows = deps.requestLog.unwritten();
  if (logRows.length > 0)
    deps.logger.error({ request_ids: logRows.map((r) => r.requestId) }, 'request-log rows not written at shutdown');
}

/** Compose a gateway and start it: cache refresh, the task work (once every driver is registered), the timers. */
export async function startGateway(config: Config, opts: GatewayOptions): Promise<Gateway> {
  const keys = { adminKey: opts.adminKey, secret: opts.secret };
  registerSecrets(config, [keys.adminKey, keys.secret]);
  // Asynchronous stdout (runtime/log-sink.ts): a line never blocks the event loop; what is queued is written on exit.
  const sink = opts.logStream ?? stdoutSink();
  const logger = makeLogger(config.logLevel, sink);
  const store =
    opts.store ??
    (await openStore(config.databaseUrl, {
      writerThread: config.sqliteWriterThread,
      checkpointThread: config.sqliteCheckpointThread,
      readThread: config.sqliteReadThread,
      ...(opts.pgSchema ? { pgSchema: opts.pgSchema } : {}),
    }));
  const opened: Opened = {
    store,
    logger,
    redis: await openRedis(config.redisUrl, logger),
    queryRateMemory: newQueryRateMemory(),
    ...(opts.clock ? { clock: opts.clock } : {}),
  };
  const { deps, vidx, app, poller, alerts } = await composeGateway(config, keys, opened, sink);
  const stopRefresh = keepCachesCoherent(deps);
  await poller?.start();
  const stopReaper = reapReservations(deps);
  const stopSweeper = sweepRequestLogPeriodically(deps);
  alerts.start();
  const close = async () => {
    // Drain in-flight requests and streams, but bounded: a connection still busy after drainMs (a client that
    // never finishes its body, a stuck upstream) is cut so shutdown always completes.
    const force = setTimeout(() => app.server.closeAllConnections(), deps.config.drainMs);
    force.unref();
    await app.close().finally(() => clearTimeout(force));
    // The drained requests' charges first: stopping the task work below can wait on slow upstream polls.
    await writeQueued(deps);
    await poller?.stop();
    await vidx.dispatcher.stop();
    await alerts.stop();
    await deps.tasks.stop();
    // What those last polls and reads queued.
    await writeQueued(deps, LAST_WRITES_MS);
    await deps.upstream.close();
    await deps.net.close();
    await deps.limiter.close();
    stopRefresh();
    stopReaper();
    await stopSweeper();
    await deps.cluster.close();
    if (!opts.store) await store.close();
    // The spans of the drained requests are sent before the process exits.
    await deps.tracing
      ?.shutdown()
      .catch((e: unknown) => deps.logger.warn({ err: String(e) }, 'tracing: last spans not sent'));
    // The last lines (the drain's access lines included) reach stdout before the process exits.
    await new Promise<void>((resolve) => deps.logger.flush(() => resolve()));
  };
  return { app, deps, poller, alerts, close };
}

/** PostgreSQL connections of an instance's poller thread (besides the instance's own pool of 10). */
export const POLLER_PG_POOL = 4;

/**
 * The poller thread's life (poller-worker.ts): its own connection to the gateway's store, its objects composed,
 * the poller and the client-callback dispatcher running until closed; no HTTP.
 */
export async function startPoller(
  config: Config,
  opts: Keys & {
    location: { url: string; pgSchema?: string };
    logStream: DestinationStream;
    queryRateMemory: SharedArrayBuffer;
    taskOwner: string;
  },
): Promise<{ apply(e: ClusterEvent): Promise<void>; kick(): void; close(): Promise<void> }> {
  const keys = { adminKey: opts.adminKey, secret: opts.secret };
  registerSecrets(config, [keys.adminKey, keys.secret]);
  const logger = makeLogger(config.logLevel, opts.logStream);
  const { url, pgSchema } = opts.location;
  // A small PostgreSQL pool: the poller's statements are few and short (docs/operations.md counts it per instance).
  const store = await openStore(url, {
    migrate: false,
    readThread: false,
    pgPoolMax: POLLER_PG_POOL,
    ...(pgSchema ? { pgSchema } : {}),
  });
  const opened: Opened = {
    store,
    logger,
    redis: await openRedis(config.redisUrl, logger),
    queryRateMemory: opts.queryRateMemory,
    taskOwner: opts.taskOwner,
  };
  const { deps, vidx } = await composePoller(config, keys, opened);
  const stopRefresh = keepCachesCoherent(deps);
  deps.tasks.start();
  vidx.dispatcher.start();
  const warn = (e: unknown) => logger.warn({ err: String(e) }, 'cache refresh failed');
  return {
    apply: (e) => applyChangeHere(deps, e).catch(warn),
    kick: () => vidx.dispatcher.kick(),
    close: async () => {
      await vidx.dispatcher.stop();
      await deps.tasks.stop();
      await deps.meter.flush();
      stopRefresh();
      await deps.upstream.close();
      await deps.net.close();
      await deps.limiter.close();
      await deps.cluster.close();
      await store.close();
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
    },
  };
}
