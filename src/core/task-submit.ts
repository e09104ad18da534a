// The upstream call of a task that waited in the gateway for a parallel-task slot (tasks/slot-queue.ts): no client
// request is there any more, so it is not metered here (the task's hold is) — only routed: across the channels
// serving its model now, connect-only (a refusal for the account's limits may go to another account; nothing that
// may have reached one is sent again).
import type { SubmitVia } from '../adapters/kling/task-driver.ts';
import { withFailover, type FailoverOptions } from '../routing/failover.ts';
import type { GatewayDeps } from './deps.ts';

export function taskSubmitVia(deps: Pick<GatewayDeps, 'catalogue' | 'channels' | 'breakers' | 'metrics'>): SubmitVia {
  return (task, attempt) => {
    const entry = deps.catalogue.resolve(task.model)?.entry;
    const channels = entry ? deps.channels.forModel(entry) : [];
    const opts: FailoverOptions = { policy: 'connect-only', model: task.model, onAttempt: deps.metrics.upstreamAttempt };
    if (entry) opts.onNotEntitled = (ch) => deps.channels.markNotEntitled(ch.id, entry.id);
    return withFailover(channels, deps.breakers, attempt, opts);
  };
}
