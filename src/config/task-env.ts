// TOLLWAY_TASK_* over the task engine's defaults (the fields are documented in src/tasks/options.ts).
import { UPSTREAMS } from '../adapters/upstreams.ts';
import { DEFAULT_TASK_ENGINE_OPTIONS as TASK_DEFAULTS, type TaskEngineOptions } from '../tasks/options.ts';
import { boolVar, intVar, type Env } from './env-vars.ts';

export function taskConfig(env: Env): TaskEngineOptions {
  return {
    pollerEnabled: boolVar(env, 'TOLLWAY_TASK_POLLER', TASK_DEFAULTS.pollerEnabled),
    pollerThread: boolVar(env, 'TOLLWAY_TASK_POLLER_THREAD', TASK_DEFAULTS.pollerThread),
    pollerNice: intVar(env, 'TOLLWAY_TASK_POLLER_NICE', TASK_DEFAULTS.pollerNice, 0, 19),
    tickMs: intVar(env, 'TOLLWAY_TASK_TICK_MS', TASK_DEFAULTS.tickMs, 10, 600_000),
    pollBaseMs: intVar(env, 'TOLLWAY_TASK_POLL_BASE_MS', TASK_DEFAULTS.pollBaseMs, 10, 600_000),
    pollMaxMs: intVar(env, 'TOLLWAY_TASK_POLL_MAX_MS', TASK_DEFAULTS.pollMaxMs, 10, 3_600_000),
    maxAgeMs: intVar(env, 'TOLLWAY_TASK_MAX_AGE_MS', TASK_DEFAULTS.maxAgeMs, 1000, 30 * 24 * 3600_000),
    leaseMs: intVar(env, 'TOLLWAY_TASK_LEASE_MS', TASK_DEFAULTS.leaseMs, 1000, 3_600_000),
    refreshStaleMs: intVar(env, 'TOLLWAY_TASK_REFRESH_STALE_MS', TASK_DEFAULTS.refreshStaleMs, 0, 600_000),
    perChannelConcurrency: intVar(env, 'TOLLWAY_TASK_POLL_CONCURRENCY', TASK_DEFAULTS.perChannelConcurrency, 1, 256),
    batchSize: TASK_DEFAULTS.batchSize,
    pollTimeoutMs: TASK_DEFAULTS.pollTimeoutMs,
    slotWaitMs: intVar(env, 'TOLLWAY_TASK_SLOT_WAIT_MS', TASK_DEFAULTS.slotWaitMs, 1000, 30 * 24 * 3600_000),
    slotSubmits: intVar(env, 'TOLLWAY_TASK_QUEUE_SUBMITS', TASK_DEFAULTS.slotSubmits, 1, 64),
    queueMaxPerToken: intVar(env, 'TOLLWAY_TASK_QUEUE_MAX_PER_TOKEN', TASK_DEFAULTS.queueMaxPerToken, 0, 1_000_000),
    queueMaxPerAccount: intVar(
      env,
      'TOLLWAY_TASK_QUEUE_MAX_PER_ACCOUNT',
      TASK_DEFAULTS.queueMaxPerAccount,
      0,
      1_000_000,
    ),
    upstreamQueryQps: upstreamQueryQps(env),
    listIntervalMs: intVar(env, 'TOLLWAY_TASK_LIST_INTERVAL_MS', TASK_DEFAULTS.listIntervalMs, 0, 600_000),
  };
}

/** The query rate the upstream's folder declares, under its env variable; none declared: unlimited. */
function upstreamQueryQps(env: Env): number {
  // The engine keeps one rate per upstream account, drawn on by the drivers that name a query account.
  const rate = UPSTREAMS.find((u) => u.queryRate)?.queryRate;
  return rate ? intVar(env, rate.env, rate.qps, 0, 1000) : 0;
}
