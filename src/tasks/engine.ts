// The durable task engine: creation with a metering hold, a background poller with leases and
// per-task exponential back-off, on-demand refresh for GETs, compare-and-set terminal transitions,
// exactly-once settle (ledger key `${taskId}:success`) and release on failure / unknown / max age.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Meter, TaskRef } from '../metering/types.ts';
import type { Channel } from '../routing/channel-registry.ts';
import type { TasksRepo } from '../store/repos/tasks.ts';
import { cancelTask } from './cancel.ts';
import { runLimited } from './limit.ts';
import { LOST_SUBMIT_CODE, lookForLostSubmit } from './lost-submit.ts';
import type { TaskEngineOptions } from './options.ts';
import type { CancelOutcome, CreateTaskInput, PollOutcome, TaskDriver, TaskError, TaskRecord } from './types.ts';
import { isTerminal, refOf } from './types.ts';

export { DEFAULT_TASK_ENGINE_OPTIONS, type TaskEngineOptions } from './options.ts';

export interface TaskEngineDeps {
  repo: TasksRepo;
  /** Lazy: the gateway builds the meter in the same deps literal. */
  meter: () => Meter;
  channels: { get(id: string): Channel | undefined };
  logger: Logger;
  options: TaskEngineOptions;
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

  async create(input: CreateTaskInput): Promise<TaskRecord> {
    const o = this.deps.options;
    const id = input.id ?? `task_${randomUUID().replace(/-/g, '')}`;
    const now = Date.now();
    await this.repo.insert({
      id,
      family: input.family,
      kind: input.kind,
      tokenId: input.tokenId,
      model: input.model,
      billingModel: input.billingModel,
      upstreamModel: input.upstreamModel,
      channelId: input.channel.id,
      request: input.request,
      requestId: input.requestId,
      tier: input.tier,
      estimate: input.estimate,
      externalTaskId: input.externalTaskId ?? null,
      callbackUrl: input.callbackUrl ?? null,
      sessionId: input.sessionId ?? null,
      // A row still `submitting` after the lease is a lost submit (crash): the poller looks for it upstream.
      nextPollAt: now + o.leaseMs,
      leaseOwner: this.owner,
      leaseUntil: now + o.leaseMs,
    }, now);
    const ref: TaskRef = { taskId: id, tokenId: input.tokenId, model: input.model, billingModel: input.billingModel, requestId: input.requestId };
    let holdAmount: number;
    try {
      holdAmount = await this.deps.meter().hold(ref, input.estimate);
    } catch (e) {
      await this.repo.delete(id);
      throw e;
    }
    let out;
    try {
      out = await input.submit(id, input.channel);
    } catch (e) {
      // Only while still `submitting`: past the deadline the poller may have found the task upstream and adopted it.
      if (await this.repo.delete(id, 'submitting')) await this.deps.meter().release(ref);
      throw e;
    }
    const patch = {
      state: out.state ?? 'queued',
      upstreamTaskId: out.upstreamTaskId,
      upstreamStatus: out.upstreamStatus ?? null,
      upstreamRequestId: out.upstreamRequestId ?? null,
      holdAmount,
      nextPollAt: Date.now() + o.pollBaseMs,
      leaseOwner: null,
      leaseUntil: null,
      ...(out.channelId ? { channelId: out.channelId } : {}),
    } as const;
    const moved = await this.repo.transition(id, 'submitting', patch);
    const t = await this.repo.get(id);
    // Past its deadline the poller took the row over: fine when it found this upstream task, else it failed it.
    if (!moved && t?.upstreamTaskId !== out.upstreamTaskId) {
      this.deps.logger.error({ task_id: id, channel_id: out.channelId ?? input.channel.id, upstream_task_id: out.upstreamTaskId }, 'task submit finished after its deadline; task already failed — reconcile');
    }
    if (!t) throw new Error(`task ${id} vanished after creation`);
    return t;
  }

  getFor(id: string, tokenId: string): Promise<TaskRecord | null> {
    return this.repo.getFor(id, tokenId);
  }

  /** The task for its owner, refreshed from the upstream first when it is open and stale. */
  async getFresh(id: string, tokenId: string): Promise<TaskRecord | null> {
    const t = await this.repo.getFor(id, tokenId);
    if (!t || isTerminal(t.state) || t.state === 'submitting') return t;
    if (Date.now() - t.updatedAt < this.deps.options.refreshStaleMs) return t;
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

  /** One poller round: claim due tasks, poll them in parallel with bounded concurrency per channel. */
  async tick(): Promise<number> {
    const o = this.deps.options;
    const claimed = await this.repo.claimDue(this.owner, o.leaseMs, o.batchSize);
    const byChannel = new Map<string, TaskRecord[]>();
    for (const t of claimed) {
      const list = byChannel.get(t.channelId) ?? [];
      list.push(t);
      byChannel.set(t.channelId, list);
    }
    await Promise.all(
      [...byChannel.values()].map((list) =>
        runLimited(list, o.perChannelConcurrency, async (t) => {
          const running = this.inflight.get(t.id);
          if (running) return void (await running.catch(() => undefined));
          const p = this.advance(t).finally(() => this.inflight.delete(t.id));
          this.inflight.set(t.id, p);
          try {
            await p;
          } catch (e) {
            this.deps.logger.error({ task_id: t.id, err: String(e) }, 'task poll failed');
          } finally {
            await this.repo.unlease(t.id, this.owner).catch(() => undefined);
          }
        }),
      ),
    );
    return claimed.length;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = () => {
      if (this.stopped) return;
      this.ticking = this.tick()
        .catch((e) => this.deps.logger.error({ err: String(e) }, 'task poller round failed'))
        .finally(() => {
          this.ticking = null;
          if (!this.stopped) this.timer = setTimeout(loop, this.deps.options.tickMs);
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
    return cancelTask({ repo: this.repo, meter: this.deps.meter(), driverOf: (kind) => this.drivers.get(kind), channels: this.deps.channels, logger: this.deps.logger, timeoutMs: this.deps.options.pollTimeoutMs }, id);
  }

  private backoff(attempts: number): number {
    const o = this.deps.options;
    const d = Math.min(o.pollBaseMs * 2 ** Math.min(attempts, 20), o.pollMaxMs);
    return Math.round(d * (0.9 + Math.random() * 0.2));
  }

  /** Move one leased task forward. Never throws for upstream trouble: it backs off instead. */
  private async advance(t: TaskRecord): Promise<TaskRecord> {
    const o = this.deps.options;
    const now = Date.now();
    if (t.state === 'submitting') return this.recoverSubmit(t);
    if (now - t.createdAt > o.maxAgeMs) {
      return this.fail(t, { code: 'task_timeout', message: 'The task did not finish within the maximum task age' }, 'task exceeded the maximum age');
    }
    const driver = this.drivers.get(t.kind);
    const channel = this.deps.channels.get(t.channelId);
    if (!driver || !channel) {
      this.deps.logger.warn({ task_id: t.id, kind: t.kind, channel_id: t.channelId }, driver ? 'task channel unavailable; will retry' : 'no driver for task kind; will retry');
      return this.retryLater(t);
    }
    let out: PollOutcome;
    try {
      out = await driver.poll(t, channel, AbortSignal.timeout(o.pollTimeoutMs));
    } catch (e) {
      this.deps.logger.warn({ task_id: t.id, err: String(e) }, 'task status query failed; backing off');
      return this.retryLater(t);
    }
    return this.apply(t, out);
  }

  /** A task still `submitting` after its deadline (see lost-submit.ts): adopt what the upstream has, else fail uncharged. */
  private async recoverSubmit(t: TaskRecord): Promise<TaskRecord> {
    const step = await lookForLostSubmit(t, this.drivers.get(t.kind), this.deps.channels.get(t.channelId), this.deps.options);
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
    });
    if (moved) this.deps.logger.warn({ task_id: t.id, channel_id: found.channelId ?? t.channelId, upstream_task_id: found.upstreamTaskId }, 'lost task submit found upstream; the task continues');
    return (await this.repo.get(t.id)) ?? t;
  }

  private async retryLater(t: TaskRecord): Promise<TaskRecord> {
    const attempts = t.pollAttempts + 1;
    await this.repo.transition(t.id, t.state, { pollAttempts: attempts, nextPollAt: Date.now() + this.backoff(attempts) });
    return (await this.repo.get(t.id)) ?? t;
  }

  private async apply(t: TaskRecord, out: PollOutcome): Promise<TaskRecord> {
    const upstreamRequestId = out.upstreamRequestId ?? t.upstreamRequestId;
    const task = { ...t, upstreamRequestId };
    switch (out.state) {
      case 'queued':
      case 'in_progress': {
        const attempts = t.pollAttempts + 1;
        await this.repo.transition(t.id, t.state, {
          state: out.state,
          upstreamStatus: out.upstreamStatus,
          progress: out.progress ?? t.progress,
          pollAttempts: attempts,
          nextPollAt: Date.now() + this.backoff(attempts),
          upstreamRequestId,
        });
        return (await this.repo.get(t.id)) ?? t;
      }
      case 'succeeded':
        return this.succeed(task, out);
      case 'failed':
      case 'cancelled':
        return this.fail(task, out.error ?? { code: 'upstream_task_failed', message: 'The upstream task failed' }, null, out);
      case 'unknown':
        return this.fail(task, out.error ?? { code: 'task_unknown', message: 'The upstream no longer knows this task' }, 'upstream reports the task unknown', out);
    }
  }

  /** Settle first (idempotent by ledger key), then compare-and-set: a crash in between re-settles as a no-op. */
  private async succeed(t: TaskRecord, out: PollOutcome): Promise<TaskRecord> {
    const usage = out.usage ?? t.usage;
    if (!usage) throw new Error(`task ${t.id} succeeded without usage or estimate`);
    try {
      const charged = await this.deps.meter().settle(refOf(t), usage);
      // Nothing charged: a re-settle after a crash (the hold is settled: go on), or an operator cancelled the task
      // first (the hold was released: the cancel is its outcome, not this success).
      if (charged === 0 && (await this.deps.meter().holdState(t.id)) === 'released') return (await this.repo.get(t.id)) ?? t;
    } catch (e) {
      this.deps.logger.error({ task_id: t.id, err: String(e) }, 'settling a finished task failed; will retry');
      return this.retryLater(t);
    }
    await this.repo.transition(t.id, t.state, {
      state: 'succeeded',
      upstreamStatus: out.upstreamStatus,
      progress: 100,
      result: out.result ?? null,
      usage,
      upstreamRequestId: t.upstreamRequestId,
      finishedAt: Date.now(),
    });
    return (await this.repo.get(t.id)) ?? t;
  }

  /** Release first (idempotent), then compare-and-set to failed/cancelled. */
  private async fail(t: TaskRecord, error: TaskError, reconcileReason: string | null, out?: PollOutcome): Promise<TaskRecord> {
    try {
      await this.deps.meter().release(refOf(t));
    } catch (e) {
      this.deps.logger.error({ task_id: t.id, err: String(e) }, 'releasing a failed task hold failed; will retry');
      return this.retryLater(t);
    }
    const state = out?.state === 'cancelled' ? 'cancelled' : 'failed';
    const err: TaskError = { code: error.code, message: error.message, upstreamRequestId: error.upstreamRequestId ?? t.upstreamRequestId };
    const moved = await this.repo.transition(t.id, t.state, {
      state,
      upstreamStatus: out?.upstreamStatus ?? t.upstreamStatus,
      error: err,
      upstreamRequestId: t.upstreamRequestId,
      finishedAt: Date.now(),
    });
    if (moved && reconcileReason) {
      this.deps.logger.warn(
        { task_id: t.id, channel_id: t.channelId, upstream_task_id: t.upstreamTaskId, token_id: t.tokenId, model: t.model, hold_amount: t.holdAmount, reason: error.code },
        `task failed and hold released: ${reconcileReason} (reconcile)`,
      );
    }
    return (await this.repo.get(t.id)) ?? t;
  }
}
