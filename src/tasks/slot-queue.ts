// Tasks that wait in the gateway for a parallel-task slot of their upstream account and model version. Kling counts
// parallel tasks per account and model version, shared by every key of the account; over the limit a creation is
// refused (429 code 1303; 1302 is its rate limit) and nothing is created. Such a refusal does not fail the client:
// the task is kept `waiting` — hold placed, upstream creation stored, shown to the client as submitted — and
// submitted when its turn comes and the queue has room (store/repos/slot-queue.ts decides, across instances): turns
// are fair across customers (store/repos/slot-turns.ts), and several submits of a queue may be in flight at once. A
// task is submitted by its creation request when no parked task's turn comes first, else by the poller, which tries
// the next turns on their poll schedule (back-off) and at once when one of the queue's tasks ends. Past the maximum
// wait it fails uncharged; so does a task whose token or account may no longer spend (revoked, expired, quota).
import type { Logger } from 'pino';
import type { HolderGone } from '../store/repos/slot-holders.ts';
import { isGatewayError } from '../errors/gateway-error.ts';
import { splitSlotQueue } from '../routing/task-slots.ts';
import type { SlotDeps, TaskEngineDeps } from './engine-deps.ts';

export type { SlotDeps };
import { errorDetail } from './events.ts';
import {
  refOf,
  type SubmitOutcome,
  type TaskDriver,
  type TaskError,
  type TaskRecord,
  type UnconfirmedSubmit,
} from './types.ts';
import { slotAfterSubmit, submitted, unconfirmed } from './submit-outcome.ts';

/** A creation request that waits this long behind other requests' submits leaves its task to the poller. */
const INLINE_WAIT_MS = 5000;

/** The code of a task failed because no slot freed within the maximum wait. */
export const SLOT_WAIT_CODE = 'task_slot_wait_timeout';

const NOT_SENT = 'while the task waited for upstream capacity; it was not submitted and not charged';

/** What a waiting task whose holder may no longer spend fails with (it was never sent). */
const HOLDER_GONE: Record<HolderGone, string> = {
  token_revoked: `The token or its account was revoked ${NOT_SENT}`,
  token_expired: `The token or its account expired ${NOT_SENT}`,
  insufficient_quota: `The token or its account ran out of quota ${NOT_SENT}`,
};

/** The upstream refused the creation for the account's limits (parallel tasks 1303, rate 1302) and took nothing. */
export function isSlotRefusal(e: unknown): boolean {
  return isGatewayError(e) && (e.code === 'concurrency_limited' || e.code === 'upstream_rate_limited');
}

interface Queued {
  id: string;
  queue: string;
  holdAmount: number;
  /** Its poll attempts so far (0: a creation request's task not yet parked). */
  attempts: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The tasks whose turn is next are tried at the poller's next round. */
export function markDue(slots: SlotDeps, queue: string): Promise<void> {
  return slots.repo.markHeadDue(queue, slots.limitOf(queue), slots.submits).catch(() => undefined);
}

/**
 * A new task's turn (its creation request): null when it moved on to be submitted now; else the task, parked
 * `waiting` for the poller — the operator's task_slots are in use, parked tasks' turns come first (the upstream
 * refused them, or they wait for a slot), or the submits ahead of it took too long.
 */
export async function takeSlot(
  deps: TaskEngineDeps,
  slots: SlotDeps,
  owner: string,
  t: Queued,
): Promise<TaskRecord | null> {
  for (let wait = 25, waited = 0; ; wait = Math.min(wait * 2, 250)) {
    const limit = slots.limitOf(t.queue);
    const turn = {
      id: t.id,
      queue: t.queue,
      owner,
      leaseMs: deps.options.leaseMs,
      limit,
      submits: slots.submits,
      inline: true,
      holdAmount: t.holdAmount,
    };
    if (await slots.repo.promote(turn)) return null;
    const s = await slots.repo.standing(t.id, t.queue);
    const full = limit !== null && s.open >= limit;
    if (full || s.parkedAhead > 0 || waited >= INLINE_WAIT_MS) {
      const why = full
        ? `the account's task_slots (${limit}) for this model are in use`
        : s.parkedAhead > 0
          ? `${s.parkedAhead} task(s) of its queue wait for a slot with an earlier turn`
          : 'other submits of its queue are in flight';
      const parked = await park(deps, t, 'waiting', deps.now() + deps.options.pollBaseMs, why);
      if (!full) await markDue(slots, t.queue);
      return parked;
    }
    await sleep(wait);
    waited += wait;
  }
}

/**
 * The upstream refused the creation for its limits: back to `waiting` (its turn given back), tried again at `nextAt`
 * (or sooner, when a slot frees); while it waits, the queue without task_slots probes one submit at a time.
 */
export async function requeue(
  deps: TaskEngineDeps,
  slots: SlotDeps,
  t: Queued,
  nextAt: number,
  e: unknown,
): Promise<TaskRecord> {
  const code = isGatewayError(e) ? e.code : 'refused';
  await slots.repo.unserved(t.queue, t.id);
  const parked = await park(
    deps,
    t,
    'submitting',
    nextAt,
    `the upstream account refused the creation for its limits (${code})`,
  );
  // Its holder revoked while the creation was out (the revocation's "due now" missed a submitting task, and the park
  // wrote the claim's later look): it ends now rather than at that look.
  const gone = await slots.repo.holderGone(parked.tokenId);
  if (!gone) return parked;
  return (
    (await endUnsubmitted(deps, slots, parked, 'waiting', 'failed', { code: gone, message: HOLDER_GONE[gone] })) ??
    parked
  );
}

/** The upstream took a creation of the queue: the next turns are tried. */
export const slotTaken = (slots: SlotDeps, queue: string): Promise<void> => markDue(slots, queue);

async function park(
  deps: TaskEngineDeps,
  t: Queued,
  from: 'waiting' | 'submitting',
  nextPollAt: number,
  why: string,
): Promise<TaskRecord> {
  const now = deps.now();
  // At least one attempt: a parked task is one the poller serves (a newer creation request queues behind it).
  const patch = {
    state: 'waiting',
    holdAmount: t.holdAmount,
    leaseOwner: null,
    leaseUntil: null,
    nextPollAt,
    pollAttempts: Math.max(1, t.attempts),
  } as const;
  await deps.repo.transition(t.id, from, patch, now, [{ kind: 'waiting', detail: why }]);
  const { account, model } = splitSlotQueue(t.queue);
  deps.logger.warn(
    { task_id: t.id, account, upstream_model: model, reason: why },
    'task waits in the gateway for a parallel-task slot of its upstream account',
  );
  const r = await deps.repo.get(t.id);
  if (!r) throw new Error(`task ${t.id} vanished while waiting`);
  return r;
}

/**
 * The poller's step for a waiting task it claimed: past the maximum wait it fails uncharged; the queue's head is
 * submitted when a slot is free; any other waits on (the claim scheduled its next look, by back-off).
 */
export async function advanceWaiting(
  deps: TaskEngineDeps,
  slots: SlotDeps,
  owner: string,
  t: TaskRecord,
  driver: TaskDriver | undefined,
): Promise<TaskRecord> {
  const queue = t.slotQueue ?? '';
  const gone = await slots.repo.holderGone(t.tokenId);
  if (gone) {
    const ended = await endUnsubmitted(deps, slots, t, 'waiting', 'failed', { code: gone, message: HOLDER_GONE[gone] });
    if (ended)
      deps.logger.warn(
        { task_id: t.id, token_id: t.tokenId, reason: gone },
        'waiting task failed uncharged: its holder may no longer spend',
      );
    return ended ?? t;
  }
  if (deps.now() - t.createdAt > deps.options.slotWaitMs) {
    const minutes = Math.round(deps.options.slotWaitMs / 60_000);
    const error = {
      code: SLOT_WAIT_CODE,
      message: `No upstream capacity for this model became free within the maximum wait (${minutes} min); the task was not submitted and not charged`,
    };
    const ended = await endUnsubmitted(deps, slots, t, 'waiting', 'failed', error);
    if (ended)
      deps.logger.warn(
        { task_id: t.id, ...splitSlotQueue(queue), waited_ms: deps.now() - t.createdAt },
        'task failed uncharged: no parallel-task slot freed within the maximum wait',
      );
    return ended ?? t;
  }
  const turn = {
    id: t.id,
    queue,
    owner,
    leaseMs: deps.options.leaseMs,
    limit: slots.limitOf(queue),
    submits: slots.submits,
  };
  if (!driver?.submitStored || !(await slots.repo.promote(turn))) return t;
  const stored = await slots.repo.submitBody(t.id);
  const q: Queued = { id: t.id, queue, holdAmount: t.holdAmount, attempts: t.pollAttempts };
  let out: SubmitOutcome | UnconfirmedSubmit;
  try {
    if (stored === null) throw new Error('the stored creation is missing');
    out = await driver.submitStored(t, stored);
  } catch (e) {
    if (isSlotRefusal(e)) return requeue(deps, slots, q, t.nextPollAt, e);
    const error = isGatewayError(e)
      ? { code: e.code, message: e.message, upstreamRequestId: e.upstreamRequestId ?? null }
      : { code: 'upstream_error', message: 'The task could not be submitted upstream' };
    deps.logger.warn(
      { task_id: t.id, ...splitSlotQueue(queue), err: String(e) },
      'a waiting task was refused upstream; failed uncharged',
    );
    return (await endUnsubmitted(deps, slots, t, 'submitting', 'failed', error)) ?? t;
  }
  const extra = slotAfterSubmit(deps, t.upstreamModel, out);
  if ('unconfirmed' in out) return unconfirmed(deps, t.id, out, extra);
  const done = await submitted(deps, t.id, out, t.holdAmount, t.channelId, extra);
  await slotTaken(slots, queue);
  return done;
}

/**
 * A task that never reached the upstream ends (`from` waiting: max wait or an operator's cancel; `from` submitting:
 * refused by the upstream): compare-and-set first — a waiting task another path moved on is left to it — then its
 * hold goes back, and the next task of its queue is looked at. Null when the task was no longer in `from`.
 */
export async function endUnsubmitted(
  deps: Pick<TaskEngineDeps, 'repo' | 'meter' | 'now'> & { logger: Pick<Logger, 'error'> },
  slots: SlotDeps | undefined,
  t: TaskRecord,
  from: 'waiting' | 'submitting',
  state: 'failed' | 'cancelled',
  error: TaskError,
): Promise<TaskRecord | null> {
  const now = deps.now();
  const patch = { state, error, finishedAt: now, submitBody: null, leaseOwner: null, leaseUntil: null } as const;
  if (!(await deps.repo.transition(t.id, from, patch, now, [{ kind: state, detail: errorDetail(error) }]))) return null;
  try {
    // Recorded in its own step: the timeline's release is read from the hold row once it is released.
    if (await deps.meter().release(refOf(t)))
      await deps.repo.transition(t.id, state, {}, deps.now(), [{ kind: 'hold_released' }]);
  } catch (e) {
    deps.logger.error(
      { task_id: t.id, err: String(e) },
      'releasing the hold of a task that was never submitted failed (reconcile)',
    );
  }
  if (t.slotQueue && slots) await markDue(slots, t.slotQueue);
  return deps.repo.get(t.id);
}

/** One of a queue's open tasks ended: its slot is free, so the queue's head is tried at the next poller round. */
export function slotFreed(slots: SlotDeps | undefined, t: Pick<TaskRecord, 'slotQueue'>): Promise<void> {
  if (!slots || !t.slotQueue) return Promise.resolve();
  return markDue(slots, t.slotQueue);
}
