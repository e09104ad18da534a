// What a poll's answer does to a task: progress is written only when it changed; a success is charged once (the
// ledger key `${taskId}:success`) and compare-and-set to succeeded in the same transaction; a failure releases the
// hold and is compare-and-set to failed/cancelled. Two pollers can never both settle a task, and a task is never
// charged without also being succeeded: a crash, or a poll that finds it failed, between the two cannot happen.
import { taskChargeKey } from '../metering/ledger-row.ts';
import { recordUpstreamCost } from '../metering/ledger-write.ts';
import { upstreamCostOf } from '../pricing/upstream-cost.ts';
import { errorDetail, statusDetail, type TaskEventInput } from './events.ts';
import { redactSecrets } from '../errors/redact.ts';
import { refOf, type PollOutcome, type TaskError, type TaskRecord } from './types.ts';
import type { TaskEngineDeps } from './engine-deps.ts';
import { slotFreed } from './slot-queue.ts';

type SettleDeps = Pick<TaskEngineDeps, 'repo' | 'meter' | 'chargedUsage' | 'logger' | 'slots' | 'now'> &
  Partial<Pick<TaskEngineDeps, 'channels'>>;

/** A poll's answer applied to a leased task: progress (written only when it changed), success or failure. */
export async function applyOutcome(deps: SettleDeps, t: TaskRecord, out: PollOutcome): Promise<TaskRecord> {
  const upstreamRequestId = out.upstreamRequestId ?? t.upstreamRequestId;
  switch (out.state) {
    case 'queued':
    case 'in_progress': {
      const progress = out.progress ?? t.progress;
      // Nothing changed: no write (the schedule was set when the task was claimed).
      if (out.state === t.state && out.upstreamStatus === t.upstreamStatus && progress === t.progress) return t;
      const now = deps.now();
      const patch = { state: out.state, upstreamStatus: out.upstreamStatus, progress, upstreamRequestId } as const;
      // A state or upstream-status change is on the timeline (once: the write is conditional on the status it saw);
      // progress alone is not.
      const changed = out.state !== t.state || out.upstreamStatus !== t.upstreamStatus;
      const events: TaskEventInput[] = changed
        ? [{ kind: 'status', detail: statusDetail(t.upstreamStatus, out.upstreamStatus) }]
        : [];
      if (await deps.repo.transition(t.id, t.state, patch, now, events, changed ? t.upstreamStatus : undefined))
        return Object.assign(t, patch, { updatedAt: now });
      return (await deps.repo.get(t.id)) ?? t;
    }
    case 'succeeded':
      return succeed(deps, { ...t, upstreamRequestId }, out);
    case 'failed':
    case 'cancelled':
      return failTask(
        deps,
        { ...t, upstreamRequestId },
        out.error ?? { code: 'upstream_task_failed', message: 'The upstream task failed' },
        null,
        out,
      );
    case 'unknown':
      return failTask(
        deps,
        { ...t, upstreamRequestId },
        out.error ?? { code: 'task_unknown', message: 'The upstream no longer knows this task' },
        'upstream reports the task unknown',
        out,
      );
  }
}

/** Thrown inside the success's transaction to undo its charge: the task moved meanwhile (another poller's write). */
class MovedMeanwhile extends Error {}

/**
 * The charge (idempotent by ledger key) and the compare-and-set to succeeded, in one transaction: both or neither.
 * A hold already released — an operator's cancel, or a poll that found the task failed first — is that outcome,
 * not this success: nothing is charged. A task that moved meanwhile is left to its next poll.
 */
async function succeed(deps: SettleDeps, t: TaskRecord, out: PollOutcome): Promise<TaskRecord> {
  const usage = deps.chargedUsage(t, out.reported);
  if (!usage) throw new Error(`task ${t.id} succeeded without usage or estimate`);
  const now = deps.now();
  try {
    await deps.repo.inTransaction(async (trx) => {
      const charged = await deps.meter().settle(refOf(t), usage, trx);
      if (charged === 0 && (await deps.meter().holdState(t.id, trx)) === 'released') return;
      // What it cost upstream, beside the charge (its channel's stated cost).
      const cost = charged > 0 ? upstreamCostOf(deps.channels?.forTask(t.channelId)?.cost, usage) : null;
      if (cost !== null) await recordUpstreamCost(trx, taskChargeKey(t.id), cost);
      const moved = await deps.repo.transition(
        t.id,
        t.state,
        {
          state: 'succeeded',
          upstreamStatus: out.upstreamStatus,
          progress: 100,
          result: out.result ?? null,
          usage,
          upstreamRequestId: t.upstreamRequestId,
          finishedAt: now,
        },
        now,
        [
          { kind: 'succeeded', detail: statusDetail(t.upstreamStatus, out.upstreamStatus) },
          { kind: 'charged', ledgerKey: taskChargeKey(t.id) },
        ],
        undefined,
        trx,
      );
      if (!moved) throw new MovedMeanwhile();
    });
  } catch (e) {
    if (!(e instanceof MovedMeanwhile))
      deps.logger.error({ task_id: t.id, err: String(e) }, 'settling a finished task failed; will retry');
    return (await deps.repo.get(t.id)) ?? t; // the next poll is already scheduled (by the claim)
  }
  await slotFreed(deps.slots, t);
  return (await deps.repo.get(t.id)) ?? t;
}

/** Release first (idempotent), then compare-and-set to failed/cancelled. */
export async function failTask(
  deps: SettleDeps,
  t: TaskRecord,
  error: TaskError,
  reconcileReason: string | null,
  out?: PollOutcome,
): Promise<TaskRecord> {
  try {
    await deps.meter().release(refOf(t));
  } catch (e) {
    deps.logger.error({ task_id: t.id, err: String(e) }, 'releasing a failed task hold failed; will retry');
    return t; // the next poll is already scheduled (by the claim)
  }
  const state = out?.state === 'cancelled' ? 'cancelled' : 'failed';
  const err: TaskError = {
    code: error.code,
    message: error.message,
    upstreamRequestId: error.upstreamRequestId ?? t.upstreamRequestId,
    ...(error.upstreamMessage ? { upstreamMessage: error.upstreamMessage } : {}),
  };
  // The upstream's own words: in the log line and the task's timeline (operators), never in the client's view.
  if (error.upstreamMessage)
    deps.logger.warn(
      { task_id: t.id, model: t.model, error_code: error.code, upstream_message: redactSecrets(error.upstreamMessage) },
      'task failed upstream',
    );
  const moved = await deps.repo.transition(
    t.id,
    t.state,
    {
      state,
      upstreamStatus: out?.upstreamStatus ?? t.upstreamStatus,
      error: err,
      upstreamRequestId: t.upstreamRequestId,
      finishedAt: deps.now(),
    },
    deps.now(),
    [{ kind: state, detail: errorDetail(err) }, { kind: 'hold_released' }],
  );
  if (moved) await slotFreed(deps.slots, t);
  if (moved && reconcileReason) {
    deps.logger.warn(
      {
        task_id: t.id,
        channel_id: t.channelId,
        upstream_task_id: t.upstreamTaskId,
        token_id: t.tokenId,
        model: t.model,
        hold_amount: t.holdAmount,
        reason: error.code,
      },
      `task failed and hold released: ${reconcileReason} (reconcile)`,
    );
  }
  return (await deps.repo.get(t.id)) ?? t;
}
