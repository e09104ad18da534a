// The durable task engine: creation with a metering hold, a background poller with leases and
// per-task exponential back-off, on-demand refresh for GETs, compare-and-set terminal transitions,
// exactly-once settle (ledger key `${taskId}:success`) and release on failure / unknown / max age.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Meter } from '../metering/types.ts';
import type { Channel } from '../routing/channel-registry.ts';
import type { TasksRepo } from '../store/repos/tasks.ts';
import { cancelTask } from './cancel.ts';
import { runLimited } from './limit.ts';
import { LOST_SUBMIT_CODE, lookForLostSubmit } from './lost-submit.ts';
import type { TaskEngineOptions } from './options.ts';
import type { CancelOutcome, CreateTaskInput, PollOutcome, TaskDriver, TaskError, TaskRecord } from './types.ts';
import { isTerminal } from './types.ts';
import { createTask } from './create.ts';
import { applyOutcome, failTask } from './settle.ts';
import { advanceWaiting, type SlotDeps } from './slot-queue.ts';

/** Fewer due tasks of one kind on one channel than this are asked about one by one, not listed. */
const BATCH_MIN = 4;

type PollUnit = { task: TaskRecord } | { batch: TaskRecord[]; driver: TaskDriver; channel: Channel };

const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

export { DEFAULT_TASK_ENGINE_OPTIONS, type TaskEngineOptions } from './options.ts';

export interface TaskEngineDeps {
  repo: TasksRepo;
  /** Lazy: the gateway builds the meter in the same deps literal. */
  meter: () => Meter;
  channels: { forTask(id: string): Channel | undefined };
  logger: Logger;
  options: TaskEngineOptions;
  /** The parallel-task queues (slot-queue.ts); absent: no task waits for a slot. */
  slots?: SlotDeps;
}


export class TaskEngine {
  readonly owner = `inst_${randomUUID()}`;
  readonly repo: TasksRepo;
  private readonly drivers = new Map<string, TaskDriver>();
  /** Polls running in this process, so concurrent GETs and the poller share one upstream call. */
  private readonly inflight = new Map<string, Promise<TaskRecord>>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<unknown> | null = null;
  private stopped = true;

  constructor(private readonly deps: TaskEngineDeps) {
    this.repo = deps.repo;
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
    if (Date.now() - Math.max(t.updatedAt, t.checkedAt ?? 0) < this.deps.options.refreshStaleMs) return t;
    return this.pollNow(t);
  }

  /** Poll one task now under a lease (or join the poll already running in this process). */
  pollNow(t: TaskRecord): Promise<TaskRecord> {
    const running = this.inflight.get(t.id);
    if (running) return running;
    const p = (async () => {
      if (!(await this.repo.lease(t.id, this.owner, this.deps.options.leaseMs))) return (await this.repo.get(t.id)) ?? t;
      const fresh = (await this.repo.get(t.id)) ?? t;
      try {
        return await this.advance(fresh);
      } finally {
        await this.repo.unlease(t.id, this.owner).catch(() => undefined);
      }
    })().finally(() => this.inflight.delete(t.id));
    this.inflight.set(t.id, p);
    return p;
  }

  /**
   * An upstream said the task changed (a callback): make it due at once, so that whichever instance polls next
   * takes it even when this one cannot lease it now, then refresh it here.
   */
  async upstreamNotified(t: TaskRecord): Promise<TaskRecord> {
    if (isTerminal(t.state) || t.state === 'submitting' || t.state === 'waiting') return t;
    await this.repo.markDue(t.id);
    return this.pollNow(t);
  }

  /**
   * One poller round: claim due tasks (the claim schedules their next poll), poll them with bounded concurrency per
   * channel — one list query for a group of tasks where the driver can batch — and drop the round's leases in
   * one statement. A poll that finds nothing changed writes nothing.
   */
  async tick(): Promise<number> {
    const o = this.deps.options;
    const claimed = await this.repo.claimDue(this.owner, o.leaseMs, o.batchSize, { baseMs: o.pollBaseMs, maxMs: o.pollMaxMs });
    if (claimed.length === 0) return 0;
    const byChannel = new Map<string, TaskRecord[]>();
    for (const t of claimed) {
      const list = byChannel.get(t.channelId);
      if (list) list.push(t);
      else byChannel.set(t.channelId, [t]);
    }
    try {
      await Promise.all([...byChannel.entries()].map(([channelId, list]) => runLimited(this.unitsOf(channelId, list), o.perChannelConcurrency, (u) => this.runUnit(u))));
    } finally {
      await this.repo.unleaseMany(claimed.map((t) => t.id), this.owner).catch((e) => this.deps.logger.warn({ err: String(e) }, 'dropping poll leases failed; they expire'));
    }
    return claimed.length;
  }

  /** Single polls, or one batch per task kind whose driver answers many tasks with one upstream query. */
  private unitsOf(channelId: string, list: TaskRecord[]): PollUnit[] {
    const channel = this.deps.channels.forTask(channelId);
    const units: PollUnit[] = [];
    const batches = new Map<string, TaskRecord[]>();
    for (const t of list) {
      const driver = this.drivers.get(t.kind);
      if (channel && driver?.pollMany && t.upstreamTaskId && t.state !== 'submitting') {
        const b = batches.get(t.kind);
        if (b) b.push(t);
        else batches.set(t.kind, [t]);
      } else units.push({ task: t });
    }
    for (const [kind, tasks] of batches) {
      if (tasks.length >= BATCH_MIN) units.push({ batch: tasks, driver: this.drivers.get(kind)!, channel: channel! });
      else for (const t of tasks) units.push({ task: t });
    }
    return units;
  }

  private async runUnit(u: PollUnit): Promise<void> {
    if ('task' in u) return this.guarded(u.task, () => this.advance(u.task));
    const o = this.deps.options;
    let outcomes: Map<string, PollOutcome>;
    const batch = u.driver.pollMany!(u.batch, u.channel, { timeoutMs: o.pollTimeoutMs });
    try {
      outcomes = await batch;
    } catch (e) {
      // The next polls are scheduled already (by the claim): nothing to write.
      this.deps.logger.warn({ channel_id: u.channel.id, tasks: u.batch.length, err: String(e) }, 'task list query failed; backing off');
      return;
    }
    const missing: TaskRecord[] = [];
    for (let i = 0; i < u.batch.length; i++) {
      const t = u.batch[i]!;
      const out = outcomes.get(t.upstreamTaskId!);
      if (!out) missing.push(t);
      else if (out.state !== t.state || out.upstreamStatus !== t.upstreamStatus || (out.progress ?? t.progress) !== t.progress || this.pastMaxAge(t)) {
        await this.guarded(t, () => this.applyAged(t, out));
      }
      // A long list is applied in slices, so request handling is never held up behind it.
      if (i % 64 === 63) await yieldTurn();
    }
    // Not in the listed pages (an older task, or one the upstream forgot): asked about one by one.
    await runLimited(missing, 2, (t) => this.guarded(t, () => this.advance(t)));
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
    await Promise.allSettled([...this.inflight.values()]);
    await this.repo.unleaseAll(this.owner).catch(() => undefined);
  }

  /** An operator's cancel of an open task, without a charge (tasks/cancel.ts). Null when there is no such task. */
  cancel(id: string): Promise<{ outcome: CancelOutcome; task: TaskRecord } | null> {
    return cancelTask({ repo: this.repo, meter: this.deps.meter(), slots: this.deps.slots, driverOf: (kind) => this.drivers.get(kind), channels: this.deps.channels, logger: this.deps.logger, timeoutMs: this.deps.options.pollTimeoutMs }, id);
  }

  /** Move one leased task forward. Never throws for upstream trouble: it backs off instead. */
  private async advance(t: TaskRecord): Promise<TaskRecord> {
    const o = this.deps.options;
    if (t.state === 'submitting') return this.recoverSubmit(t);
    if (t.state === 'waiting') return this.deps.slots ? advanceWaiting(this.deps, this.deps.slots, this.owner, t, this.drivers.get(t.kind)) : t;
    const driver = this.drivers.get(t.kind);
    const channel = this.deps.channels.forTask(t.channelId);
    if (!driver || !channel) {
      if (this.pastMaxAge(t)) return this.timedOut(t);
      this.deps.logger.warn({ task_id: t.id, kind: t.kind, channel_id: t.channelId }, driver ? 'task channel unavailable; will retry' : 'no driver for task kind; will retry');
      return this.retryLater(t);
    }
    let out: PollOutcome;
    try {
      out = await driver.poll(t, channel, { timeoutMs: o.pollTimeoutMs });
    } catch (e) {
      if (this.pastMaxAge(t)) return this.timedOut(t);
      this.deps.logger.warn({ task_id: t.id, err: String(e) }, 'task status query failed; backing off');
      return this.retryLater(t);
    }
    return this.applyAged(t, out);
  }

  private pastMaxAge(t: TaskRecord): boolean {
    return Date.now() - t.createdAt > this.deps.options.maxAgeMs;
  }

  /**
   * The upstream's answer, weighed against the maximum age after it was asked: a task it reports ended is settled as
   * it ended whatever its age (a success found late — a poller down for a while, the last back-off step — is still
   * charged and delivered); only a task still open past the age, or one the upstream cannot be asked about, times out.
   */
  private applyAged(t: TaskRecord, out: PollOutcome): Promise<TaskRecord> {
    const open = out.state === 'queued' || out.state === 'in_progress' || out.state === 'unknown';
    return open && this.pastMaxAge(t) ? this.timedOut(t) : this.apply(t, out);
  }

  private timedOut(t: TaskRecord): Promise<TaskRecord> {
    return this.fail(t, { code: 'task_timeout', message: 'The task did not finish within the maximum task age' }, 'task exceeded the maximum age');
  }

  /** A task still `submitting` after its deadline (see lost-submit.ts): adopt what the upstream has, else fail uncharged. */
  private async recoverSubmit(t: TaskRecord): Promise<TaskRecord> {
    const step = await lookForLostSubmit(t, this.drivers.get(t.kind), this.deps.channels.forTask(t.channelId), this.deps.options);
    if (step.do === 'fail') return this.fail(t, { code: LOST_SUBMIT_CODE, message: step.message }, `lost submit: ${step.why}`);
    if (step.do === 'back-off') {
      this.deps.logger.warn({ task_id: t.id, kind: t.kind, channel_id: t.channelId, reason: step.why }, 'lost task submit not looked up yet; backing off');
      return this.retryLater(t);
    }
    if (step.do === 'look-again') {
      await this.repo.transition(t.id, 'submitting', { pollAttempts: t.pollAttempts + 1, nextPollAt: step.at });
      return (await this.repo.get(t.id)) ?? t;
    }
    const { found } = step;
    const moved = await this.repo.transition(t.id, 'submitting', {
      state: found.state ?? 'queued',
      upstreamTaskId: found.upstreamTaskId,
      upstreamStatus: found.upstreamStatus ?? null,
      upstreamRequestId: found.upstreamRequestId ?? null,
      nextPollAt: Date.now(), // its status at once: it may have finished meanwhile
      pollAttempts: 0,
      ...(found.channelId ? { channelId: found.channelId } : {}),
    }, Date.now(), [{ kind: 'recovered', detail: `creation answer lost; found upstream as task ${found.upstreamTaskId}` }]);
    if (moved) this.deps.logger.warn({ task_id: t.id, channel_id: found.channelId ?? t.channelId, upstream_task_id: found.upstreamTaskId }, 'lost task submit found upstream; the task continues');
    return (await this.repo.get(t.id)) ?? t;
  }

  /** The next poll is already scheduled (the claim set it by back-off): try again then, writing nothing now. */
  private async retryLater(t: TaskRecord): Promise<TaskRecord> {
    return t;
  }

  private apply(t: TaskRecord, out: PollOutcome): Promise<TaskRecord> {
    return applyOutcome(this.deps, t, out);
  }

  private fail(t: TaskRecord, error: TaskError, reconcileReason: string | null): Promise<TaskRecord> {
    return failTask(this.deps, t, error, reconcileReason);
  }
}
