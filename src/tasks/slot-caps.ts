// The cap on tasks waiting for a parallel-task slot, per token and per customer account: a batch of creations fills
// its own share of the queue, never the gateway's store. It counts every queue task the upstream has not taken yet:
// a waiting task out on a retried creation (or a creation request's first try) is still one, so a retry in flight
// never frees a place. Counted after the new task's row is written (before its hold and any upstream call):
// concurrent creations each see the others, so together they never pass the cap.
import { GatewayError } from '../errors/gateway-error.ts';
import type { TaskEngineDeps } from './engine-deps.ts';
import type { SlotDeps } from './engine-deps.ts';

/** Refuses (429 task_queue_full) the new waiting task `id` when its token or account has more waiting than the cap. */
export async function withinWaitingCaps(
  deps: TaskEngineDeps,
  slots: SlotDeps,
  id: string,
  tokenId: string,
): Promise<void> {
  const { queueMaxPerToken: perToken, queueMaxPerAccount: perAccount } = deps.options;
  if (perToken === 0 && perAccount === 0) return;
  const n = await slots.repo.unsentOf(tokenId);
  const over =
    perToken > 0 && n.token > perToken
      ? `this token already has ${perToken} tasks waiting`
      : perAccount > 0 && n.account > perAccount
        ? `this token's account already has ${perAccount} tasks waiting`
        : null;
  if (over === null) return;
  await deps.repo.delete(id);
  throw new GatewayError(
    'task_queue_full',
    `Too many tasks wait for upstream capacity: ${over} (the most allowed). Retry once some of them have started; nothing was charged`,
  );
}
