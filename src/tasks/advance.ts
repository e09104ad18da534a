// One task moved forward by a poll: a lost creation recovered, a waiting task given its slot, or the upstream asked
// (under its account's query rate) and the answer applied. Never throws for upstream trouble: it backs off instead.
import type { QueryWho } from '../limits/query-rate.ts';
import type { Channel } from '../routing/channel-registry.ts';
import type { TaskEngineDeps } from './engine-deps.ts';
import { advanceWaiting } from './slot-queue.ts';
import { applyAged, pastMaxAge, recoverSubmit, timedOut } from './task-age.ts';
import type { PollOutcome, TaskDriver, TaskRecord } from './types.ts';

/** What a poll of one task needs of its engine. */
export interface AdvanceDeps {
  deps: TaskEngineDeps;
  /** The engine's lease owner (a waiting task's submit is leased to it). */
  owner: string;
  driverOf(kind: string): TaskDriver | undefined;
  /** May one more upstream query about a task on this channel go out now (its account's query rate)? */
  admit(driver: TaskDriver, channel: Channel, who: QueryWho): Promise<boolean> | true;
}

/**
 * Move one task forward. Never throws for upstream trouble: it backs off instead (returns the task as it is: the
 * claim scheduled the next poll already, so nothing is written now).
 */
export async function advanceTask(e: AdvanceDeps, t: TaskRecord, who: QueryWho | 'admitted'): Promise<TaskRecord> {
  const { deps } = e;
  const o = deps.options;
  if (t.state === 'submitting') return recoverSubmit(deps, e.driverOf(t.kind), t);
  if (t.state === 'waiting') return deps.slots ? advanceWaiting(deps, deps.slots, e.owner, t, e.driverOf(t.kind)) : t;
  const driver = e.driverOf(t.kind);
  const channel = deps.channels.forTask(t.channelId);
  if (!driver || !channel) {
    if (pastMaxAge(deps, t)) return timedOut(deps, t);
    deps.logger.warn(
      { task_id: t.id, kind: t.kind, channel_id: t.channelId },
      driver ? 'task channel unavailable; will retry' : 'no driver for task kind; will retry',
    );
    return t;
  }
  // No room in the account's query rate: asked again at its next poll (already scheduled), nothing written.
  if (who !== 'admitted' && !(await e.admit(driver, channel, who))) return t;
  let out: PollOutcome;
  try {
    out = await driver.poll(t, channel, { timeoutMs: o.pollTimeoutMs });
  } catch (e) {
    if (pastMaxAge(deps, t)) return timedOut(deps, t);
    deps.logger.warn({ task_id: t.id, err: String(e) }, 'task status query failed; backing off');
    return t;
  }
  return applyAged(deps, t, out);
}
