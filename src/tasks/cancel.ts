// A cancel of an open task (an operator's POST /admin/tasks/{id}/cancel, its owner's DELETE /v1/videos/{id}): it
// fails without a charge. The task's hold decides, by one compare-and-set (meter.release): when the release wins, no
// settle can charge afterwards (the engine's success path sees the released hold and leaves the task alone) and the
// task is moved to `cancelled`; when a settle already won, the task is being charged and is left to finish. The
// upstream is then asked to stop the task where it offers that, best-effort.
import type { Logger } from 'pino';
import type { Meter } from '../metering/types.ts';
import type { Channel } from '../routing/channel-registry.ts';
import type { TasksRepo } from '../store/repos/tasks.ts';
import { errorDetail } from './events.ts';
import type { CancelOutcome, TaskDriver, TaskError, TaskRecord } from './types.ts';
import { isTerminal, refOf } from './types.ts';
import type { SlotDeps } from './engine-deps.ts';
import { endUnsubmitted, slotFreed } from './slot-queue.ts';

export interface CancelDeps {
  repo: TasksRepo;
  meter: Meter;
  slots?: SlotDeps | undefined;
  driverOf(kind: string): TaskDriver | undefined;
  channels: { forTask(id: string): Channel | undefined };
  logger: Pick<Logger, 'warn' | 'error'>;
  /** Time allowed for the upstream's cancel call. */
  timeoutMs: number;
  /** Room in the account's query rate for the cancel call (absent: not rate-limited). */
  admit?(driver: TaskDriver, channel: Channel): Promise<boolean> | true;
  /** The clock of task times (the engine's); the waits below are real time. */
  now: () => number;
}

/**
 * How long a cancel waits for the submit try of a task that was waiting (then: 409, as for any task being submitted).
 */
const SLOT_TRY_WAIT_MS = 10_000;

/** How long the upstream cancel waits for room in the account's query rate before it is given up. */
const ADMIT_WAIT_MS = 5_000;

/** Who cancels: the operator (POST /admin/tasks/{id}/cancel) or the task's owner (DELETE /v1/videos/{id}). */
export type CancelBy = 'operator' | 'owner';

const CANCEL_MESSAGE: Record<CancelBy, string> = {
  operator: 'The task was cancelled by an operator',
  owner: 'The task was cancelled by its owner (deleted before it finished)',
};

export async function cancelTask(
  d: CancelDeps,
  id: string,
  by: CancelBy = 'operator',
  since = Date.now(),
): Promise<{ outcome: CancelOutcome; task: TaskRecord } | null> {
  const t = await d.repo.get(id);
  if (!t) return null;
  // A waiting task being tried right now (its queue's head, sent upstream): the try's outcome is awaited, briefly —
  // refused, it is waiting again and released here; taken, it is an open task and cancelled as one.
  if (
    t.state === 'submitting' &&
    t.slotQueue !== null &&
    t.leaseOwner !== null &&
    (t.leaseUntil ?? 0) > d.now() &&
    Date.now() - since < SLOT_TRY_WAIT_MS
  ) {
    await new Promise((r) => setTimeout(r, 50));
    return cancelTask(d, id, by, since);
  }
  const error: TaskError = {
    code: 'task_cancelled',
    message: CANCEL_MESSAGE[by],
    upstreamRequestId: t.upstreamRequestId,
  };
  if (t.state === 'waiting') {
    // Never sent upstream: released, and it never will be (unless it moved on to be submitted meanwhile).
    const ended = await endUnsubmitted(
      { repo: d.repo, meter: () => d.meter, logger: d.logger, now: d.now },
      d.slots,
      t,
      'waiting',
      'cancelled',
      error,
    );
    if (ended) return { outcome: 'cancelled', task: ended };
    return cancelTask(d, id, by, since);
  }
  if (t.state === 'submitting' || isTerminal(t.state)) return { outcome: 'not_open', task: t };
  if (!(await d.meter.release(refOf(t)))) return { outcome: 'finishing', task: (await d.repo.get(id)) ?? t };
  // The state may move under us (queued → in_progress by a poll); retry the compare-and-set from the state read.
  for (let cur: TaskRecord | null = t; cur && !isTerminal(cur.state); cur = await d.repo.get(id)) {
    const patch = { state: 'cancelled', error, finishedAt: d.now(), leaseOwner: null, leaseUntil: null } as const;
    if (
      await d.repo.transition(id, cur.state, patch, d.now(), [
        { kind: 'cancelled', detail: errorDetail(error) },
        { kind: 'hold_released' },
      ])
    )
      break;
  }
  const after = (await d.repo.get(id)) ?? t;
  if (after.state === 'cancelled') await slotFreed(d.slots, t);
  cancelUpstream(d, t);
  return { outcome: after.state === 'cancelled' ? 'cancelled' : 'not_open', task: after };
}

function cancelUpstream(d: CancelDeps, t: TaskRecord): void {
  const driver = d.driverOf(t.kind);
  const channel = d.channels.forTask(t.channelId);
  if (!driver?.cancel || !channel) return;
  const admitted = async () => {
    for (const until = Date.now() + ADMIT_WAIT_MS; Date.now() < until; await new Promise((r) => setTimeout(r, 100)))
      if (!d.admit || (await d.admit(driver, channel))) return true;
    return false;
  };
  const send = async () => {
    if (!(await admitted())) throw new Error("no room in the account's query rate");
    await driver.cancel!(t, channel, { timeoutMs: d.timeoutMs });
  };
  send().catch((e: unknown) =>
    d.logger.warn(
      { task_id: t.id, channel_id: t.channelId, err: String(e) },
      'upstream cancel of a cancelled task failed (the gateway charges nothing either way)',
    ),
  );
}
