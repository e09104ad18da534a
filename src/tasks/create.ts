// Creating a task: its row (still `submitting`, leased until the submit deadline), the metering hold, then the
// upstream submit. A submit that fails removes the row and releases the hold only while the row is still
// `submitting`: past the deadline the poller may have found the task upstream and adopted it (lost-submit.ts).
// A submit that cannot tell whether the upstream took it leaves the row to that recovery at once.
// A task counted in a parallel-task queue (input.slot) is written `waiting` instead and submitted here only when its
// queue lets it (slot-queue.ts); otherwise, or when the upstream refuses it for the account's limits, it waits.
import { randomUUID } from 'node:crypto';
import type { TaskRef } from '../metering/types.ts';
import type { TaskEngineDeps } from './engine-deps.ts';
import { withinWaitingCaps } from './slot-caps.ts';
import { isSlotRefusal, requeue, slotTaken, takeSlot } from './slot-queue.ts';
import { slotAfterSubmit, submitted, unconfirmed } from './submit-outcome.ts';
import type { CreateTaskInput, TaskRecord } from './types.ts';

export async function createTask(deps: TaskEngineDeps, owner: string, input: CreateTaskInput): Promise<TaskRecord> {
  const o = deps.options;
  const id = input.id ?? `task_${randomUUID().replace(/-/g, '')}`;
  const now = deps.now();
  const slot = input.slot && deps.slots ? { ...input.slot, deps: deps.slots } : null;
  await deps.repo.insert(
    {
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
      leaseOwner: owner,
      leaseUntil: now + o.leaseMs,
      ...(slot ? { waiting: { slotQueue: slot.queue, submitBody: JSON.stringify(slot.stored) } } : {}),
    },
    now,
  );
  if (slot) await withinWaitingCaps(deps, slot.deps, id, input.tokenId);
  const ref: TaskRef = {
    taskId: id,
    tokenId: input.tokenId,
    model: input.model,
    billingModel: input.billingModel,
    requestId: input.requestId,
  };
  let holdAmount: number;
  try {
    holdAmount = await deps
      .meter()
      .hold(input.billing ? { ...ref, billing: input.billing } : ref, input.hold ?? input.estimate);
  } catch (e) {
    await deps.repo.delete(id);
    throw e;
  }
  if (slot) {
    const parked = await takeSlot(deps, slot.deps, owner, { id, queue: slot.queue, holdAmount, attempts: 0 });
    if (parked) return parked;
  }
  let out: Awaited<ReturnType<typeof input.submit>>;
  try {
    out = await input.submit(id, input.channel);
  } catch (e) {
    if (slot && isSlotRefusal(e))
      return requeue(deps, slot.deps, { id, queue: slot.queue, holdAmount, attempts: 0 }, deps.now() + o.pollBaseMs, e);
    // Only while still `submitting`: past the deadline the poller may have found the task upstream and adopted it.
    if (await deps.repo.delete(id, 'submitting')) await deps.meter().release(ref);
    throw e;
  }
  const extra = slot ? slotAfterSubmit(deps, input.upstreamModel, out) : {};
  if ('unconfirmed' in out) return unconfirmed(deps, id, out, extra);
  const t = await submitted(deps, id, out, holdAmount, input.channel.id, extra);
  if (slot) await slotTaken(slot.deps, slot.queue);
  return t;
}
