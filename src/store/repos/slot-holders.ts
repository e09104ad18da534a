// Whether the holder of a task waiting for a parallel-task slot may still spend: its token and the token's account
// not revoked, not expired, and their holds within their quotas. A waiting task was never sent, so when its holder
// may no longer spend it must not be: it ends uncharged instead (tasks/slot-queue.ts), and the move to submit it
// checks the same in its own statement, so a revocation just before the move still stops it. On PostgreSQL the move
// also locks the holder's rows (lockHolder), so a revocation and a move never pass each other unseen.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.ts';

/** Why the holder may no longer spend (the code the task fails with), or null. */
export type HolderGone = 'token_revoked' | 'token_expired' | 'insufficient_quota';

const overQuota = (t: string) => `(${t}.quota IS NOT NULL AND ${t}.spent + ${t}.held > ${t}.quota)`;

/** A SQL condition: the token `k` of the task (column `tasks.token_id`) and its account may spend at `now`. */
export function holderLive(now: number): RawBuilder<boolean> {
  return sql<boolean>`EXISTS (SELECT 1 FROM tokens hk LEFT JOIN accounts ha ON ha.id = hk.account_id
    WHERE hk.id = tasks.token_id AND hk.revoked_at IS NULL AND (hk.expires_at IS NULL OR hk.expires_at > ${now})
      AND NOT ${sql.raw(overQuota('hk'))}
      AND (ha.id IS NULL OR (ha.revoked_at IS NULL AND (ha.expires_at IS NULL OR ha.expires_at > ${now}) AND NOT ${sql.raw(overQuota('ha'))})))`;
}

/**
 * PostgreSQL, inside the move's transaction and before its statement: the task's token and account rows locked FOR
 * SHARE (the token first: the order every write locks in, balance-bound.ts). Under READ COMMITTED a move whose
 * statement read the holder just before a revocation committed could otherwise commit just after the revocation
 * counted its creations in flight (submitsInFlight), unseen. With the lock, a revocation's UPDATE either committed
 * first (the move's statement, run after the lock, sees it and does not move) or waits for the move to commit (and its
 * count, run after, sees the move). A quota or expiry change serialises with the move the same way.
 */
export async function lockHolder(trx: Kysely<Database>, taskId: string): Promise<void> {
  const k = await sql<{ account_id: string | null }>`
    SELECT account_id FROM tokens WHERE id = (SELECT token_id FROM tasks WHERE id = ${taskId}) FOR SHARE`.execute(trx);
  const account = k.rows[0]?.account_id;
  if (account) await sql`SELECT 1 FROM accounts WHERE id = ${account} FOR SHARE`.execute(trx);
}

/** Why the token (and its account) may no longer spend at `now`; null when it may. */
export async function holderGone(db: Kysely<Database>, tokenId: string, now = Date.now()): Promise<HolderGone | null> {
  const r = await sql<{ revoked: number | string; expired: number | string; over: number | string }>`
    SELECT
      CASE WHEN k.revoked_at IS NOT NULL OR a.revoked_at IS NOT NULL THEN 1 ELSE 0 END AS revoked,
      CASE WHEN k.expires_at <= ${now} OR a.expires_at <= ${now} THEN 1 ELSE 0 END AS expired,
      CASE WHEN ${sql.raw(overQuota('k'))} OR ${sql.raw(overQuota('a'))} THEN 1 ELSE 0 END AS over
    FROM tokens k LEFT JOIN accounts a ON a.id = k.account_id WHERE k.id = ${tokenId}`.execute(db);
  const row = r.rows[0];
  if (!row || Number(row.revoked)) return 'token_revoked';
  if (Number(row.expired)) return 'token_expired';
  if (Number(row.over)) return 'insufficient_quota';
  return null;
}

/**
 * The holder's creations in flight at `now`: its tasks being submitted under a live lease (a creation request's first
 * try, or a waiting task's turn that the move let through while the holder was still live).
 */
export async function submitsInFlight(
  db: Kysely<Database>,
  holder: { tokenId: string } | { accountId: string },
  now = Date.now(),
): Promise<number> {
  const of =
    'tokenId' in holder
      ? sql`token_id = ${holder.tokenId}`
      : sql`token_id IN (SELECT id FROM tokens WHERE account_id = ${holder.accountId})`;
  const r = await sql<{
    n: number | string;
  }>`SELECT count(*) AS n FROM tasks WHERE state = 'submitting' AND lease_until >= ${now} AND ${of}`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

/**
 * The holder changed (revoked, its quota lowered): its waiting tasks are due now, so the poller looks at them at
 * its next round (and ends those that may no longer be sent) rather than at their next back-off.
 */
export async function waitingDueFor(
  db: Kysely<Database>,
  holder: { tokenId: string } | { accountId: string },
  now = Date.now(),
): Promise<void> {
  const of =
    'tokenId' in holder
      ? sql`token_id = ${holder.tokenId}`
      : sql`token_id IN (SELECT id FROM tokens WHERE account_id = ${holder.accountId})`;
  await sql`UPDATE tasks SET next_poll_at = ${now} WHERE state = 'waiting' AND ${of} AND next_poll_at > ${now}`.execute(
    db,
  );
}
