// An upstream may count parallel tasks per upstream account and model version: the gateway keeps one queue for each
// (`<account>|<upstream model>`), and the operator may say how many tasks the account runs at once (task_slots).
import type { Channel } from './channel-registry.ts';
import { upstreamAccountOf } from './upstream-account.ts';

/** The queue of a task created through `channel` for `upstreamModel`. */
export const slotQueueOf = (
  channel: Pick<Channel, 'kind' | 'upstreamAccount' | 'keys'>,
  upstreamModel: string,
): string => `${upstreamAccountOf(channel)}|${upstreamModel}`;

/** A queue's upstream account and model version (`account`, `model`: the metrics labels, log and API fields). */
export function splitSlotQueue(queue: string): { account: string; model: string } {
  const cut = queue.lastIndexOf('|');
  return { account: queue.slice(0, cut), model: queue.slice(cut + 1) };
}

/**
 * The operator's task_slots for the queue's account: the smallest set on any of its channels; null when none is set.
 */
export function slotLimitOf(channels: readonly Channel[], queue: string): number | null {
  const { account: upstreamAccount } = splitSlotQueue(queue);
  let limit: number | null = null;
  for (const c of channels)
    if (c.taskSlots !== null && upstreamAccountOf(c) === upstreamAccount)
      limit = limit === null ? c.taskSlots : Math.min(limit, c.taskSlots);
  return limit;
}
