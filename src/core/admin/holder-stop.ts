// A revoked token or account stops spending on tasks that were never sent. Its tasks waiting for a parallel-task slot
// are made due, so the poller ends them uncharged at its next round; and the revocation answers only once none of its
// creations is in flight. A waiting task's turn that the move let through just before the revocation (its holder then
// still live) is out to the upstream: if the revocation answered at once, that creation could land after the answer —
// and after a slot freed — and the task run and be charged. Waiting for it instead, the creation either was refused
// (the task then ends uncharged: tasks/slot-queue.ts requeue) or was taken before the revocation answered.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { submitsInFlight, waitingDueFor } from '../../store/repos/slot-holders.ts';

/**
 * The longest a revocation waits for its holder's creations in flight. Each ends by its answer or its deadline (the
 * lease, after which the lost-submit recovery owns it); this bounds the wait when that deadline is long.
 */
export const SETTLE_MAX_MS = 30_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** After the holder's revocation is stored: its waiting tasks due now, and its creations in flight settled. */
export async function stopHolder(
  db: Kysely<Database>,
  holder: { tokenId: string } | { accountId: string },
  maxMs = SETTLE_MAX_MS,
): Promise<void> {
  await waitingDueFor(db, holder);
  const until = Date.now() + maxMs;
  for (let wait = 5; (await submitsInFlight(db, holder)) > 0 && Date.now() < until; wait = Math.min(wait * 2, 50))
    await sleep(wait);
}
