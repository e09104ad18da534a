// A task still `submitting` after its deadline: the gateway stopped between sending the creation and storing its
// answer, so the upstream may have the task. The creation is never sent again (it may have started work); the
// driver looks for it by the id the creation carried. This decides the next step; the engine applies it.
import type { Logger } from 'pino';
import type { Channel } from '../routing/channel-registry.ts';
import type { TasksRepo } from '../store/repos/tasks.ts';
import type { TaskEngineOptions } from './options.ts';
import type { SubmitOutcome, TaskDriver, TaskRecord } from './types.ts';

export type LostSubmitStep =
  /** The upstream has it: the task continues as submitted (charged once, at success). */
  | { do: 'adopt'; found: SubmitOutcome }
  /** Not found yet while a creation could still be in flight: look again at `at`. */
  | { do: 'look-again'; at: number }
  /** The upstream could not be asked now: back off. */
  | { do: 'back-off'; why: string }
  /** Failed uncharged (hold released), logged and listed by the reconciliation report. */
  | { do: 'fail'; message: string; why: string };

/** The error code of a task failed because its creation answer was lost (listed by the reconciliation report). */
export const LOST_SUBMIT_CODE = 'task_submit_lost';

const TOO_OLD = "The task's creation could not be confirmed within the maximum task age; it was not charged";

export async function lookForLostSubmit(
  t: TaskRecord,
  driver: TaskDriver | undefined,
  channel: Channel | undefined,
  o: TaskEngineOptions,
  now: number,
): Promise<LostSubmitStep> {
  if (driver && !driver.recoverSubmit) {
    return {
      do: 'fail',
      message:
        "The answer to this task's creation was lost and the upstream cannot be asked for it; it was not charged",
      why: 'the upstream cannot be asked for the task (it may have run there: check the upstream account)',
    };
  }
  const tooOld = now - t.createdAt > o.maxAgeMs;
  if (!driver?.recoverSubmit || !channel) {
    return tooOld
      ? { do: 'fail', message: TOO_OLD, why: 'no driver or channel to look for the task' }
      : { do: 'back-off', why: 'no driver or channel to look it up' };
  }
  let found: SubmitOutcome | null;
  try {
    found = await driver.recoverSubmit(t, channel, { timeoutMs: o.pollTimeoutMs });
  } catch (e) {
    return tooOld
      ? { do: 'fail', message: TOO_OLD, why: 'the upstream could not be asked for the task' }
      : { do: 'back-off', why: `looking it up failed: ${String(e)}` };
  }
  if (found) return { do: 'adopt', found };
  // A creation still in flight (slow upstream, another instance's submit) lands within its timeouts, under one lease.
  const settledAt = t.createdAt + 2 * o.leaseMs;
  if (now < settledAt) return { do: 'look-again', at: settledAt };
  return {
    do: 'fail',
    message: 'The task never reached the upstream; it was not charged',
    why: 'the upstream has no such task',
  };
}

/**
 * The task was found upstream: it continues as that upstream task, asked about at once (it may have finished
 * meanwhile).
 */
export async function adoptFound(
  repo: TasksRepo,
  logger: Logger,
  t: TaskRecord,
  found: SubmitOutcome,
  now: number,
): Promise<TaskRecord> {
  const moved = await repo.transition(
    t.id,
    'submitting',
    {
      state: found.state ?? 'queued',
      upstreamTaskId: found.upstreamTaskId,
      upstreamStatus: found.upstreamStatus ?? null,
      upstreamRequestId: found.upstreamRequestId ?? null,
      nextPollAt: now,
      pollAttempts: 0,
      ...(found.channelId ? { channelId: found.channelId } : {}),
    },
    now,
    [{ kind: 'recovered', detail: `creation answer lost; found upstream as task ${found.upstreamTaskId}` }],
  );
  if (moved)
    logger.warn(
      { task_id: t.id, channel_id: found.channelId ?? t.channelId, upstream_task_id: found.upstreamTaskId },
      'lost task submit found upstream; the task continues',
    );
  return (await repo.get(t.id)) ?? t;
}
