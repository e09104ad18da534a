// Options of the task engine, in one place for the engine and the environment configuration
// (src/config/config.ts reads TOLLWAY_TASK_* over these defaults). No imports: config.ts depends on it.
export interface TaskEngineOptions {
  pollerEnabled: boolean;
  /**
   * The poller and client callbacks on a thread of their own with their own store connection (not for an in-memory
   * SQLite store): a backlog of open tasks then takes nothing from the request thread.
   */
  pollerThread: boolean;
  /**
   * Nice value of the poller thread (Linux; 0–19): with the CPU contended, the scheduler favours the request thread,
   * and the poller takes what is left (it needs little: see docs/performance.md#open-tasks).
   */
  pollerNice: number;
  /** Poller wake-up interval. */
  tickMs: number;
  /** First back-off step; doubles per poll up to pollMaxMs. */
  pollBaseMs: number;
  pollMaxMs: number;
  /** Open tasks older than this end as failed (hold released). */
  maxAgeMs: number;
  /** How long a claim protects a task from other pollers (and the submit deadline). */
  leaseMs: number;
  /** A GET refreshes an open task whose last update is older than this. */
  refreshStaleMs: number;
  /**
   * Parallel upstream polls per channel (upstream account): a cap, the rate follows the back-off schedule. High enough
   * that a busy event loop (slow answers) does not hold a large backlog's polls behind their schedule.
   */
  perChannelConcurrency: number;
  /**
   * Max tasks claimed per round: the claim is one statement on the event loop, so rounds stay small and follow each
   * other.
   */
  batchSize: number;
  /** Timeout of one upstream status query. */
  pollTimeoutMs: number;
  /** How long a task may wait in the gateway for a parallel-task slot before it fails uncharged (slot-queue.ts). */
  slotWaitMs: number;
  /** Submits of one parallel-task queue in flight at once (fewer when the account's task_slots leave less room). */
  slotSubmits: number;
  /** Tasks one token may have waiting for a parallel-task slot; a creation past it is refused (0: no cap). */
  queueMaxPerToken: number;
  /** Tasks the tokens of one customer account may have waiting for a parallel-task slot (0: no cap). */
  queueMaxPerAccount: number;
  /**
   * The upstream query rate: task queries per second per upstream account, shared by every gateway instance when
   * Redis is configured; 0 = unlimited. Configured from the upstream that declares one (adapters/<upstream>/index.ts).
   */
  upstreamQueryQps: number;
  /**
   * How often an account with many open tasks has its task list read (more seldom when its pages are many); 0 = never.
   */
  listIntervalMs: number;
}

export const DEFAULT_TASK_ENGINE_OPTIONS: TaskEngineOptions = {
  pollerEnabled: true,
  pollerThread: true,
  pollerNice: 10,
  tickMs: 500,
  pollBaseMs: 1000,
  pollMaxMs: 30_000,
  maxAgeMs: 24 * 3600_000,
  // Above the slowest creation answer waited for (a family A creation: 60 s to its first byte), so a slow but
  // successful submit is not taken for a lost one.
  leaseMs: 90_000,
  refreshStaleMs: 1000,
  perChannelConcurrency: 32,
  batchSize: 64,
  pollTimeoutMs: 20_000,
  slotWaitMs: 3600_000,
  slotSubmits: 4,
  queueMaxPerToken: 200,
  queueMaxPerAccount: 1000,
  upstreamQueryQps: 15,
  listIntervalMs: 2000,
};
