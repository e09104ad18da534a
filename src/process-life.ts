// Process life of a gateway and of its poller thread: what is opened (store, Redis connections, logger) before the
// objects are composed (compose.ts), what starts then and in which order, the timers, and the stop order with its
// final writes. main.ts, the poller thread's entry (poller-worker.ts) and the tests start gateways through here.
import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { ClusterEvent } from './cluster/cluster-bus.ts';
import {
  composeGateway,
  composePoller,
  type AlertLoops,
  type BackgroundPoller,
  type Keys,
  type Opened,
} from './compose.ts';
import type { Config } from './config/config.ts';
import { applyChangeHere } from './core/admin/cache-changes.ts';
import { keepCachesCoherent, reapReservations, sweepRequestLogPeriodically } from './background-timers.ts';
import type { GatewayDeps } from './core/deps.ts';
import { registerSecrets } from './config/secrets.ts';
import { newQueryRateMemory } from './limits/query-rate.ts';
import { makeLogger } from './runtime/logger.ts';
import { stdoutSink } from './runtime/log-sink.ts';
import { openStore, type Store } from './store/store.ts';
import { LAST_WRITES_MS, writeQueued } from './final-writes.ts';
import { openRedis } from './open-redis.ts';

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
