// The `holds` rows a task's hold or a call's reservation is, and the token's `held` moving with them: placed by
// compare-and-set against the quota, closed by compare-and-set (held → settled | released), so each has one outcome.
import { sql, type Kysely } from 'kysely';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Database } from '../store/schema.ts';

/** Reservations of calls answered at once are keyed by their request id (tasks by task_… / video_… ids). */
export const RESERVATION_PREFIX = 'req_';

export type HoldState = 'held' | 'settled' | 'released';

/**
 * Insert the hold row and move the token's `held` by compare-and-set: it lands only if it fits the quota, with the
 * token's queued charges not yet committed (`pending`) counted too. False when a hold with this key already exists.
 */
export async function placeHold(trx: Kysely<Database>, h: { key: string; tokenId: string; amount: number; pending: number }, refusal: string): Promise<boolean> {
  const now = Date.now();
  const ins = await trx
    .insertInto('holds')
    .values({ task_id: h.key, token_id: h.tokenId, amount: h.amount, state: 'held', created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('task_id').doNothing())
    .executeTakeFirst();
  if (Number(ins.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
  const r = await trx
    .updateTable('tokens')
    .set({ held: sql`held + ${h.amount}` })
    .where('id', '=', h.tokenId)
    .where((eb) => eb.or([eb('quota', 'is', null), eb(sql`spent + held + ${h.amount + h.pending}`, '<=', eb.ref('quota'))]))
    .executeTakeFirst();
  // Rolled back with the insert.
  if (Number(r.numUpdatedRows) === 0) throw new GatewayError('insufficient_quota', refusal);
  return true;
}

/**
 * Decide the outcome: CAS the hold row held → `to`. A task without a hold gets a zero-amount row first, so the CAS
 * (and its one-outcome guarantee) applies to every task. Returns the held amount released from `tokens.held`, or
 * null if the outcome was already decided.
 */
export async function closeHold(trx: Kysely<Database>, key: string, tokenId: string, to: 'settled' | 'released'): Promise<number | null> {
  const now = Date.now();
  await trx
    .insertInto('holds')
    .values({ task_id: key, token_id: tokenId, amount: 0, state: 'held', created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('task_id').doNothing())
    .execute();
  const closed = await trx
    .updateTable('holds')
    .set({ state: to, updated_at: now })
    .where('task_id', '=', key)
    .where('state', '=', 'held')
    .returning(['amount', 'token_id'])
    .executeTakeFirst();
  if (!closed) return null;
  const amount = Number(closed.amount);
  if (amount > 0) await trx.updateTable('tokens').set({ held: sql`held - ${amount}` }).where('id', '=', closed.token_id).execute();
  return amount;
}

/**
 * Holds open longer than `olderThanMs` that nothing else will close: a call's reservation left open, or a task's
 * hold whose task row is gone (a creation refused upstream removes its row, then releases its hold in a second
 * step: if that step failed, nothing else would give the hold back).
 */
export function staleHolds(db: Kysely<Database>, olderThanMs: number): Promise<Array<{ task_id: string; token_id: string }>> {
  return db
    .selectFrom('holds')
    .select(['task_id', 'token_id'])
    .where('state', '=', 'held')
    .where('created_at', '<', Date.now() - olderThanMs)
    .where(({ or, eb, not, exists, selectFrom }) => or([eb('task_id', 'like', `${RESERVATION_PREFIX}%`), not(exists(selectFrom('tasks').select('tasks.id').whereRef('tasks.id', '=', 'holds.task_id')))]))
    .limit(1000)
    .execute();
}

export async function holdStateOf(db: Kysely<Database>, taskId: string): Promise<HoldState | null> {
  const h = await db.selectFrom('holds').select('state').where('task_id', '=', taskId).executeTakeFirst();
  return h ? (h.state as HoldState) : null;
}
