// What a submit's answer writes to its task, whether the creation request or the slot queue's turn submitted it: the
// upstream took it (queued, polled from now on), or could not say (left to the lost-submit recovery).
import type { TaskPatch } from '../store/repos/tasks.ts';
import { slotQueueOf } from '../routing/task-slots.ts';
import type { TaskEngineDeps } from './engine-deps.ts';
import type { SubmitOutcome, TaskRecord, UnconfirmedSubmit } from './types.ts';

/**
 * The upstream took the creation: `submitting` → queued with its task id, polled from now on. Past its deadline the
 * poller may have taken the row over: fine when it found this upstream task, else it failed it (logged).
 */
export async function submitted(
  deps: TaskEngineDeps,
  id: string,
  out: SubmitOutcome,
  holdAmount: number,
  channelId: string,
  extra: TaskPatch = {},
): Promise<TaskRecord> {
  const patch = {
    state: out.state ?? 'queued',
    upstreamTaskId: out.upstreamTaskId,
    upstreamStatus: out.upstreamStatus ?? null,
    upstreamRequestId: out.upstreamRequestId ?? null,
    holdAmount,
    nextPollAt: deps.now() + deps.options.pollBaseMs,
    leaseOwner: null,
    leaseUntil: null,
    ...(out.channelId ? { channelId: out.channelId } : {}),
    ...extra,
  } as const;
  const moved = await deps.repo.transition(id, 'submitting', patch, deps.now(), [
    { kind: 'submitted', detail: `upstream task ${out.upstreamTaskId}`, amount: holdAmount },
  ]);
  const t = await deps.repo.get(id);
  if (!moved && t?.upstreamTaskId !== out.upstreamTaskId) {
    deps.logger.error(
      { task_id: id, channel_id: out.channelId ?? channelId, upstream_task_id: out.upstreamTaskId },
      'task submit finished after its deadline; task already failed — reconcile',
    );
  }
  if (!t) throw new Error(`task ${id} vanished after creation`);
  return t;
}

/**
 * The upstream may have the task but could not say: it stays `submitting` (its hold kept), handed to the poller at
 * once (lease released, due after one poll interval), whose lost-submit recovery adopts it or fails it uncharged.
 */
export async function unconfirmed(
  deps: TaskEngineDeps,
  id: string,
  out: UnconfirmedSubmit,
  extra: TaskPatch = {},
): Promise<TaskRecord> {
  const now = deps.now();
  await deps.repo.transition(
    id,
    'submitting',
    {
      leaseOwner: null,
      leaseUntil: null,
      nextPollAt: now + deps.options.pollBaseMs,
      channelId: out.channelId,
      upstreamRequestId: out.upstreamRequestId ?? null,
      ...extra,
    },
    now,
  );
  deps.logger.warn(
    { task_id: id, channel_id: out.channelId },
    'task submit unconfirmed: answer lost and the lookup failed; left to the lost-submit recovery',
  );
  const t = await deps.repo.get(id);
  if (!t) throw new Error(`task ${id} vanished after creation`);
  return t;
}

/**
 * What a submit from a queue also writes: the creation no longer kept, the queue of the account that took it, polls
 * from the start.
 */
export function slotAfterSubmit(
  deps: TaskEngineDeps,
  upstreamModel: string,
  out: SubmitOutcome | UnconfirmedSubmit,
): TaskPatch {
  const ch = out.channelId ? deps.channels.forTask(out.channelId) : undefined;
  return { submitBody: null, pollAttempts: 0, ...(ch ? { slotQueue: slotQueueOf(ch, upstreamModel) } : {}) };
}
