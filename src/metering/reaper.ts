// The reaper's rules: which open holds nothing else will close, and their release. A call's reservation is reaped
// past the reservation TTL; an allowance by its own rule — not renewed by its instance for ALLOWANCE_STALE_MS — so
// no TTL, however short, reaps an allowance its instance still reserves from in memory (allowances.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { ALLOWANCE_STALE_MS } from './allowances.ts';
import { ALLOWANCE_PREFIX, closeHold, RESERVATION_PREFIX } from './holds.ts';
import type { OnReaped } from './types.ts';

/**
 * Holds open since before `before` that nothing else will close: a call's reservation left open, or a task's hold
 * whose task row is gone (a creation refused upstream removes its row, then releases its hold in a second step: if
 * that step failed, nothing else would give the hold back); and allowances last renewed before `allowancesBefore`.
 */
function staleHolds(
  db: Kysely<Database>,
  before: number,
  allowancesBefore: number,
): Promise<Array<{ hold_key: string; token_id: string }>> {
  return db
    .selectFrom('holds')
    .select(['hold_key', 'token_id'])
    .where('state', '=', 'held')
    .where('created_at', '<', Math.max(before, allowancesBefore))
    .where(({ or, and, eb, not, exists, selectFrom }) =>
      or([
        and([
          eb('created_at', '<', before),
          or([
            eb('hold_key', 'like', `${RESERVATION_PREFIX}%`),
            // An allowance has no task row either: it is reaped by its own rule only.
            and([
              eb('hold_key', 'not like', `${ALLOWANCE_PREFIX}%`),
              not(exists(selectFrom('tasks').select('tasks.id').whereRef('tasks.id', '=', 'holds.hold_key'))),
            ]),
          ]),
        ]),
        // An allowance by its own rule (allowances.ts): its instance renews it while it uses it, so one not renewed
        // for long was left by a stopped instance. (Renewed or not, updated_at is never before created_at.)
        and([eb('updated_at', '<', allowancesBefore), eb('hold_key', 'like', `${ALLOWANCE_PREFIX}%`)]),
      ]),
    )
    .limit(1000)
    .execute();
}

/** Release the holds of calls older than `olderThanMs` never closed (their instance died), and stale allowances. */
export async function reapHolds(
  db: Kysely<Database>,
  now: () => number,
  olderThanMs: number,
  onReaped?: OnReaped,
): Promise<number> {
  const at = now();
  const stale = await staleHolds(db, at - olderThanMs, at - ALLOWANCE_STALE_MS);
  let n = 0;
  for (const h of stale) {
    const closed = await db.transaction().execute(async (trx) => {
      const target = await closeHold(trx, h.hold_key, h.token_id, 'released', now());
      // Announced (hold.reaped) in the transaction that released it.
      if (target !== null) await onReaped?.(trx, { key: h.hold_key, tokenId: h.token_id, amount: target.amount });
      return target;
    });
    if (closed !== null) n++;
  }
  return n;
}
