// The composition root: every long-lived object (repos, meter, caches, upstream clients, adapters, task drivers,
// dispatchers, the HTTP app) is built here and nowhere else, each given its listeners at construction. It wires and
// runs nothing: what is opened, started and stopped, in which order, is process-life.ts.
import { inTrustedNetwork } from './net/trusted-network.ts';
import { clientTokenCheck } from './core/console/sessions.ts';
import { oidcIssuer } from './auth/oidc-issuer.ts';
import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { UpstreamClient } from './adapters/http-client.ts';
import { KlingClient } from './adapters/kling/client.ts';
import { ChannelProber } from './adapters/probe.ts';
import { KlingJwtSigner } from './adapters/kling/jwt.ts';
import { SecretBox } from './auth/secret-box.ts';
import { TokenAuth } from './auth/token-auth.ts';
import { LocalBus, RedisBus, type ClusterEvent } from './cluster/cluster-bus.ts';
import type { Config } from './config/config.ts';
import { applyChangeHere } from './core/admin/cache-changes.ts';
import { finishedTaskUsage } from './core/video-usage.ts';
import type { GatewayDeps } from './core/deps.ts';
import type { VidxContext } from './core/vidx/context.ts';
import { composeLimits } from './compose-limits.ts';
import { loadCatalogue } from './pricing/catalogue-source.ts';
import { createSafeNet } from './net/safe-fetch.ts';
import { GatewayMetrics } from './observe/metrics.ts';
import { CapacityMetrics } from './observe/capacity-metrics.ts';
import { MoneyMetrics } from './observe/money-metrics.ts';
import type { LimitRefused } from './metering/refusal.ts';
import { MoneyGaugesRepo } from './store/repos/money-gauges.ts';
import { composeCapacity } from './compose-capacity.ts';
import { CapacityCalls } from './core/capacity-call.ts';
import { startLimitReader } from './capacity/read-limits.ts';
import { startTracing } from './observe/tracing.ts';
import { ChannelRegistry } from './routing/channel-registry.ts';
import { CircuitBreakers } from './routing/circuit-breaker.ts';
import { slotLimitOf } from './routing/task-slots.ts';
import { SlotQueueRepo } from './store/repos/slot-queue.ts';
import { TasksRepo } from './store/repos/tasks.ts';
import { TaskEngine } from './tasks/engine.ts';
import { UPSTREAMS, upstreamOf } from './adapters/upstreams.ts';
import { PriceGroups } from './pricing/price-groups.ts';
import { AlertEmitter } from './alerts/emitter.ts';
import { buildRepos, composeWriters } from './compose-store.ts';
import { composeAlerts, type AlertLoops } from './compose-alerts.ts';
import { composeTasks, inProcessPoller, pollerThread } from './compose-tasks.ts';
import type { BackgroundPoller, Keys, Opened } from './compose-types.ts';

export type { BackgroundPoller, Keys, Opened, RedisClients } from './compose-types.ts';

/** A gateway's objects: deps, the family A context (its dispatcher), the HTTP app, and where its task work runs. */
export type { AlertLoops };

export interface GatewayParts {
  deps: GatewayDeps;
  vidx: VidxContext;
  app: FastifyInstance;
  poller: BackgroundPoller | null;
  alerts: AlertLoops;
}

/**
 * Store-backed objects and caches: everything GatewayDeps holds, with the one Kling client (JWT signer inside) the
 * prober and the family A drivers share. `onChange`: told of each admin change made here, after the cluster.
 */
async function composeDeps(
  config: Config,
  keys: Keys,
  o: Opened,
  onChange?: (e: ClusterEvent) => void,
): Promise<{ deps: GatewayDeps; kling: KlingClient }> {
  const { store, logger, redis } = o;
  const box = new SecretBox(keys.secret);
  const repos = buildRepos(store);
  const channels = new ChannelRegistry(repos.channels, box);
  await channels.reload();
  const catalogue = await loadCatalogue(store.db, config.catalogueFile);
  const priceGroups = new PriceGroups(() => repos.priceGroups.all());
  await priceGroups.reload();
  // A refusal by a limit: the limit-reached alert, written off the request path (the emitter is made below).
  const onRefused = (r: LimitRefused) =>
    void alerts.limitReached(r).catch((e: unknown) => logger.warn({ err: String(e) }, 'limit alert not written'));
  const { meter, requestLog } = composeWriters(
    store,
    repos.audit,
    () => deps.catalogue,
    logger,
    priceGroups,
    o.clock,
    onRefused,
  );
  const cluster = redis
    ? new RedisBus(redis.publish, redis.subscribe, (e) => logger.warn({ err: String(e) }, 'cluster bus error'))
    : new LocalBus();
  if (cluster instanceof RedisBus) await cluster.whenReady();
  const upstream = new UpstreamClient(config.upstreamTimeouts);
  const kling = new KlingClient(upstream, new KlingJwtSigner());
  const breakers = new CircuitBreakers();
  const alerts = new AlertEmitter(store.db, repos.webhooks);
  breakers.onTransition((id, to, at) => {
    alerts
      .breakerChanged({ id, name: channels.get(id)?.name ?? null }, to, at)
      .catch((e: unknown) => logger.warn({ err: String(e), channel_id: id }, 'breaker alert not written'));
  });
  const metrics = new GatewayMetrics({
    channels,
    breakers,
    ledger: meter.backlog,
    requestLog: requestLog.backlog,
    gauges: repos.gauges,
    logger,
  });
  const capacityMetrics = new CapacityMetrics(metrics.registry);
  const moneyMetrics = new MoneyMetrics(metrics.registry, new MoneyGaugesRepo(store.reads), logger);
  const capacity = composeCapacity(
    config,
    channels,
    () => deps.catalogue,
    redis?.limits ?? null,
    capacityMetrics,
    (e) => logger.warn({ err: String(e) }, 'capacity counters: Redis unreachable, this instance paces alone'),
  );
  capacityMetrics.watch(capacity);
  const tokenAuth = new TokenAuth(repos.tokens);
  const { limiter, queryRate } = composeLimits(config, logger, redis, o.queryRateMemory);
  const slots = {
    repo: new SlotQueueRepo(store.db, store.dialect),
    limitOf: (queue: string) => slotLimitOf(channels.all(), queue),
    submits: config.tasks.slotSubmits,
  };
  const deps: GatewayDeps = {
    config,
    store,
    logger,
    adminKey: keys.adminKey,
    adminKeys: {
      adminKey: keys.adminKey,
      limiter,
      isClientToken: clientTokenCheck(tokenAuth),
      trusted: inTrustedNetwork(config.trustProxy),
    },
    box,
    oidc: config.oidc ? oidcIssuer(config.oidc) : null,
    catalogue,
    channels,
    tokenAuth,
    priceGroups,
    repos,
    requestLog,
    meter,
    upstream,
    net: createSafeNet(),
    tasks: new TaskEngine({
      repo: new TasksRepo(store.db, store.dialect),
      meter: () => meter,
      channels,
      chargedUsage: (t, r) => finishedTaskUsage(deps.catalogue, t, r),
      logger,
      options: config.tasks,
      owner: o.taskOwner,
      queryRate,
      slots,
    }),
    breakers,
    capacity,
    capacityCalls: new CapacityCalls(capacity),
    alerts,
    prober: new ChannelProber(UPSTREAMS, { upstream, kling }),
    limiter,
    cluster,
    applyChange: async (e) => {
      await applyChangeHere(deps, e);
      await cluster.publish(e);
      onChange?.(e);
    },
    metrics,
    moneyMetrics,
    tracing: await startTracing(config.tracing, logger),
  };
  return { deps, kling };
}

/** A gateway's objects: deps, every task driver, the HTTP app, and its task work's placement (not started). */
export async function composeGateway(
  config: Config,
  keys: Keys,
  o: Opened,
  sink: DestinationStream,
): Promise<GatewayParts> {
  const thread = pollerThread(config, keys, o, sink);
  // With the task work on the thread, admin changes reach it at once, and a task finished here (a client's read, an
  // upstream callback) has its client callback sent by the thread's dispatcher (this one does not run).
  const { deps, kling } = await composeDeps(config, keys, o, thread ? (e) => thread.publish(e) : undefined);
  // The HTTP modules load only here: the CLI composes the admin core alone and never carries Fastify.
  const [{ buildApp }, views, { dashscopeTextAdapter }] = await Promise.all([
    import('./http/app.ts'),
    import('./core/vidx/views.ts'),
    import('./adapters/dashscope/compat-chat-adapter.ts'),
  ]);
  const vidx = composeTasks(deps, kling, views, thread ? () => thread.kick() : undefined);
  const app = await buildApp(deps, { text: dashscopeTextAdapter(deps.upstream), vidx });
  // The upstream accounts' own limits, read at start and every few minutes (stopped with the app).
  if (config.capacity.readLimitsMs > 0) {
    const stop = startLimitReader(
      {
        capacity: deps.capacity,
        channels: () => deps.channels.all(),
        upstreamOf,
        clients: { upstream: deps.upstream, kling },
        onError: (account, e) =>
          deps.logger.warn({ account, err: String(e) }, 'upstream limits not read; stated and learnt limits stand'),
      },
      config.capacity.readLimitsMs,
      () => deps.channels.version,
    );
    app.addHook('onClose', async () => stop());
  }
  return {
    deps,
    vidx,
    app,
    poller: thread ?? (config.tasks.pollerEnabled ? inProcessPoller(deps, vidx) : null),
    alerts: composeAlerts(deps),
  };
}

/** The poller thread's objects (poller-worker.ts): deps on its own store connection, every task driver; no HTTP. */
export async function composePoller(
  config: Config,
  keys: Keys,
  o: Opened,
): Promise<{ deps: GatewayDeps; vidx: VidxContext }> {
  const { deps, kling } = await composeDeps(config, keys, o);
  return { deps, vidx: composeTasks(deps, kling, await import('./core/vidx/views.ts')) };
}
