// The durable task engine: creation with a metering hold, a background poller with sticky leases and
// per-task exponential back-off, on-demand refresh for GETs, compare-and-set terminal transitions,
// exactly-once settle (ledger key `${taskId}:success`) and release on failure / unknown / max age.
import { randomUUID } from 'node:crypto';
import type { Channel } from '../routing/channel-registry.ts';
import type { TasksRepo } from '../store/repos/tasks.ts';
import { type CancelBy, cancelTask } from './cancel.ts';
import { runLimited } from './limit.ts';
import { applyAged, pastMaxAge } from './task-age.ts';
import type { TaskEngineOptions } from './options.ts';
import type { CancelOutcome, CreateTaskInput, TaskDriver, TaskRecord } from './types.ts';
import { isTerminal, STICKY_STATES } from './types.ts';
import { createTask } from './create.ts';
import { advanceTask } from './advance.ts';
import type { TaskEngineDeps } from './engine-deps.ts';
import { byChannel, pollBatch, pollUnits, type PollUnit } from './batch-poll.ts';
import { ListRounds, roundFresh } from './list-rounds.ts';
import { UNLIMITED_QUERY_RATE, type QueryRate, type QueryWho } from '../limits/query-rate.ts';

export { DEFAULT_TASK_ENGINE_OPTIONS, type TaskEngineOptions } from './options.ts';
export type { SlotDeps, TaskEngineDeps } from './engine-deps.ts';

/** What the engine is built from: its parts' deps, the clock defaulting to the meter's. */
export type TaskEngineInput = Omit<TaskEngineDeps, 'now'> & { now?: () => number };

export const newTaskOwner = (): string => `inst_${randomUUID()}`;

export class TaskEngine {
  /** Who holds this engine's poll leases (sticky: repos/tasks.ts claimDue). */
  readonly owner: string;
  readonly repo: TasksRepo;
  private readonly drivers = new Map<string, TaskDriver>();
  /** Polls running in this process, so concurrent GETs and the poller share one upstream call. */
  private readonly inflight = new Map<string, Promise<TaskRecord>>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<unknown> | null = null;
  private listing: Promise<void> | null = null;
  private stopped = true;
  private readonly queryRate: QueryRate;
  readonly rounds: ListRounds;

  private readonly deps: TaskEngineDeps;

  constructor(input: TaskEngineInput) {
    const deps: TaskEngineDeps = { ...input, now: input.now ?? (() => input.meter().now()) };
    this.deps = deps;
    this.repo = deps.repo;
    this.owner = deps.owner ?? newTaskOwner();
    this.queryRate = deps.queryRate ?? UNLIMITED_QUERY_RATE;
    this.rounds = new ListRounds({
      db: deps.repo.db,
      channels: deps.channels,
      logger: deps.logger,
      queryRate: this.queryRate,
      finish: (t) => this.finishListed(t),
      stopping: () => this.stopped,
      move: (t, out) => this.guarded(t, () => applyAged(this.deps, t, out)),
      options: deps.options,
      now: deps.now,
    });
  }

  /**
   * A task its account's list showed finished: its own query, when the query rate has room. True once the task has
   * ended here; false when it could not be asked or its query failed (a 429, a timeout): the round asks again later.
   */
  private async finishListed(t: TaskRecord): Promise<boolean> {
    const driver = this.drivers.get(t.kind);
    const channel = this.deps.channels.forTask(t.channelId);
    if (!driver || !channel || !(await this.admit(driver, channel, 'poller'))) return false;
    return isTerminal((await this.pollNow(t, 'admitted')).state);
  }

  /** May one more upstream query about a task on this channel go out now (its account's query rate)? */
  private admit(driver: TaskDriver, channel: Channel, who: QueryWho): Promise<boolean> | true {
    return driver.queryAccount ? this.queryRate.take(driver.queryAccount(channel), who) : true;
  }

  get options(): TaskEngineOptions {
    return this.deps.options;
  }

  registerDriver(kind: string, driver: TaskDriver): void {
    this.drivers.set(kind, driver);
  }

  /** Create a task: row, hold, submit (tasks/create.ts). */
  create(input: CreateTaskInput): Promise<TaskRecord> {
    return createTask(this.deps, this.owner, input);
  }

  getFor(id: string, tokenId: string): Promise<TaskRecord | null> {
    return this.repo.getFor(id, tokenId);
  }

  /** The task for its owner, refreshed from the upstream first when it is open and was not checked lately. */
  async getFresh(id: string, tokenId: string): Promise<TaskRecord | null> {
    const t = await this.repo.getFor(id, tokenId);
    if (!t || isTerminal(t.state) || t.state === 'submitting' || t.state === 'waiting') return t;
    if (this.deps.now() - Math.max(t.updatedAt, t.checkedAt ?? 0) < this.deps.options.refreshStaleMs) return t;
    // A task its account's list rounds follow (a fresh round began after it was created) is read as stored; otherwise
    // a client's read asks the upstream only when the account's query rate has room, and gets the stored state if not.
    const driver = this.drivers.get(t.kind);
    const channel = this.deps.channels.forTask(t.channelId);
    if (driver?.queryAccount && channel) {
      const round = await this.queryRate.lastRound(driver.queryAccount(channel));
      if (
        (round > t.createdAt && roundFresh(round, this.deps.options.listIntervalMs, this.deps.now())) ||
        !(await this.admit(driver, channel, 'client'))
      )
        return t;
    }
    return this.pollNow(t, 'admitted');
  }

  /**
   * Poll one task now, on demand (or join the poll already running in this process). `admitted`: the query rate was
   * asked already; otherwise it is asked as the poller's. No lease is taken: the task may be another poller's (leases
   * are sticky, repos/tasks.ts claimDue), whose round skips it or asks too; the outcome is applied once either way.
   */
  pollNow(t: TaskRecord, who: QueryWho | 'admitted' = 'poller'): Promise<TaskRecord> {
    const running = this.inflight.get(t.id);
    if (running) return running;
    const p = (async () => {
      const fresh = await this.repo.checkUpstream(t.id, this.deps.now());
      if (!fresh) return (await this.repo.get(t.id)) ?? t;
      return this.advance(fresh, who);
    })().finally(() => this.inflight.delete(t.id));
    this.inflight.set(t.id, p);
    return p;
  }

  /**
   * An upstream said the task changed (a callback): make it due at once, so that whichever poller holds it takes it
   * in its next round even if this refresh fails, then refresh it here.
   */
  async upstreamNotified(t: TaskRecord): Promise<TaskRecord> {
    if (isTerminal(t.state) || t.state === 'submitting' || t.state === 'waiting') return t;
    await this.repo.markDue(t.id, this.deps.now());
    return this.pollNow(t);
  }

  /**
   * One poller round: claim due tasks (the claim schedules their next poll and leases them), poll them with bounded
   * concurrency per channel — one list query for a group of tasks where the driver can batch. A poll that finds
   * nothing changed writes nothing, and the leases of queued and running tasks stay (sticky: see claimDue); only a
   * task that was still submitting or waiting is handed back, in one statement.
   */
  async tick(): Promise<number> {
    const o = this.deps.options;
    // Accounts with many open tasks are followed by their task lists, beside the claims (a round may wait for the
    // query rate).
    this.listing ??= this.rounds
      .run(this.drivers)
      .catch((e) => this.deps.logger.warn({ err: String(e) }, 'task list rounds failed'))
      .finally(() => (this.listing = null));
    const claimed = await this.repo.claimDue(
      this.owner,
      o.leaseMs,
      o.batchSize,
      { baseMs: o.pollBaseMs, maxMs: o.pollMaxMs, listed: this.rounds.listed() },
      this.deps.now(),
    );
    if (claimed.length === 0) return 0;
    try {
      await Promise.all(
        [...byChannel(claimed).entries()].map(([channelId, list]) =>
          runLimited(
            pollUnits(
              list,
              this.deps.channels.forTask(channelId),
              (k) => this.drivers.get(k),
              (a, id) => this.rounds.covers(a, id),
            ),
            o.perChannelConcurrency,
            (u) => this.runUnit(u),
          ),
        ),
      );
    } finally {
      const handBack = claimed.filter((t) => !STICKY_STATES.includes(t.state)).map((t) => t.id);
      if (handBack.length > 0)
        await this.repo
          .unleaseMany(handBack, this.owner)
          .catch((e) => this.deps.logger.warn({ err: String(e) }, 'dropping poll leases failed; they expire'));
    }
    return claimed.length;
  }

  /** Single polls, or one batch per task kind whose driver answers many tasks with one upstream query. */
  private async runUnit(u: PollUnit): Promise<void> {
    if ('task' in u) return this.guarded(u.task, () => this.advance(u.task));
    await pollBatch(
      {
        logger: this.deps.logger,
        timeoutMs: this.deps.options.pollTimeoutMs,
        pastMaxAge: (t) => pastMaxAge(this.deps, t),
        apply: (t, out) => this.guarded(t, () => applyAged(this.deps, t, out)),
        pollOne: (t) => this.guarded(t, () => this.advance(t)),
      },
      u.driver,
      u.channel,
      u.batch,
    );
  }

  /** Run one task's poll as the poller's (GETs in this process join it); log, never throw. */
  private async guarded(t: TaskRecord, fn: () => Promise<TaskRecord>): Promise<void> {
    const running = this.inflight.get(t.id);
    if (running) return void (await running.catch(() => undefined));
    const p = fn().finally(() => this.inflight.delete(t.id));
    this.inflight.set(t.id, p);
    try {
      await p;
    } catch (e) {
      this.deps.logger.error({ task_id: t.id, err: String(e) }, 'task poll failed');
    }
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = () => {
      if (this.stopped) return;
      let full = false;
      this.ticking = this.tick()
        .then((n) => void (full = n >= this.deps.options.batchSize))
        .catch((e) => this.deps.logger.error({ err: String(e) }, 'task poller round failed'))
        .finally(() => {
          this.ticking = null;
          if (this.stopped) return;
          // A full round means more is due: go on after this turn's I/O; otherwise sleep a tick.
          if (full) this.timer = setTimeout(loop, 0);
          else this.timer = setTimeout(loop, this.deps.options.tickMs);
        });
    };
    this.timer = setTimeout(loop, 0);
  }

  /** Stop polling, wait for the round in flight, and drop our leases so another instance can continue at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.ticking) await this.ticking;
    if (this.listing) await this.listing;
    await Promise.allSettled([...this.inflight.values()]);
    await this.repo.unleaseAll(this.owner).catch(() => undefined);
  }

  /** A cancel of an open task, without a charge (tasks/cancel.ts), by an operator or its owner. Null: no such task. */
  cancel(id: string, by: CancelBy = 'operator'): Promise<{ outcome: CancelOutcome; task: TaskRecord } | null> {
    return cancelTask(
      {
        repo: this.repo,
        meter: this.deps.meter(),
        slots: this.deps.slots,
        driverOf: (kind) => this.drivers.get(kind),
        channels: this.deps.channels,
        logger: this.deps.logger,
        timeoutMs: this.deps.options.pollTimeoutMs,
        admit: (d, c) => this.admit(d, c, 'poller'),
        now: this.deps.now,
      },
      id,
      by,
    );
  }

  /** Move one task forward (advance.ts). */
  private advance(t: TaskRecord, who: QueryWho | 'admitted' = 'poller'): Promise<TaskRecord> {
    return advanceTask(
      {
        deps: this.deps,
        owner: this.owner,
        driverOf: (kind) => this.drivers.get(kind),
        admit: (d, c, w) => this.admit(d, c, w),
      },
      t,
      who,
    );
  }
}
