// The order in which a parallel-task queue's waiting tasks get a slot: fair turns across customers (start-time fair
// queueing). Each customer (a token's account; a token without one is its own) has the turns it was served in the
// queue (`served`, kept in task_slot_turns), and the queue a virtual time (`vtime`: the start of the last turn given).
// A customer's waiting tasks, oldest first, are its 1st, 2nd … next: the j-th one's turn is max(served, vtime) +
// j / weight, the least first; ties go to the customer holding fewer of the queue's slots, then by age. So customers
// with tasks waiting alternate (weighted round-robin), one
// that comes back starts at the queue's present (no credit for the time it was away), and a customer's backlog never
// pushes another's first task back. Every customer's weight is TENANT_WEIGHT for now; an account's weight, once
// accounts have one, is read where TENANT_WEIGHT is used (here and in the repo's move).
import { sql, type RawBuilder } from 'kysely';

export const OPEN_STATES = sql`('submitting', 'queued', 'in_progress')`;

/** The customer of a task's token (`k`): its account, else the token itself. */
const tenantOf = (k: string) => sql.raw(`COALESCE('a:' || ${k}.account_id, 't:' || ${k}.id)`);

/** A customer's weight in the turns (the same for each: no account weight is kept yet). */
export const TENANT_WEIGHT = 1;

/** The customer of a task's token, by task id. */
export const tenantOfTask = (id: string) =>
  sql<string>`(SELECT ${tenantOf('k')} FROM tasks t JOIN tokens k ON k.id = t.token_id WHERE t.id = ${id})`;

/** The queue's virtual time (0 before its first turn). */
const vtimeOf = (queue: string) => sql`COALESCE((SELECT q.vtime FROM task_slot_queues q WHERE q.queue = ${queue}), 0)`;

/**
 * A waiting task is parked when the poller serves it: it was tried already (attempts) or its creation request is
 * gone (lease over). A task its creation request still holds is not.
 */
const parked = (now: number) =>
  sql`CASE WHEN w.poll_attempts > 0 OR w.lease_until IS NULL OR w.lease_until < ${now} THEN 1 ELSE 0 END`;

/** The queue's waiting tasks with their turn (`rk`, 1 first) and whether they are parked: a CTE body. */
export function rankedWaiting(queue: string, now: number): RawBuilder<unknown> {
  const start = sql`(CASE WHEN s.served > v.t THEN s.served ELSE v.t END)`;
  return sql`
    SELECT r.id, r.parked,
      ROW_NUMBER() OVER (ORDER BY COALESCE(${start}, v.t) + r.j * 1.0 / ${sql.lit(TENANT_WEIGHT)}, COALESCE(o.n, 0), r.created_at, r.id) AS rk
    FROM (
      SELECT w.id, w.created_at, ${parked(now)} AS parked, ${tenantOf('k')} AS tenant,
        ROW_NUMBER() OVER (PARTITION BY ${tenantOf('k')} ORDER BY w.created_at, w.id) AS j
      FROM tasks w JOIN tokens k ON k.id = w.token_id
      WHERE w.slot_queue = ${queue} AND w.state = 'waiting'
    ) r
    CROSS JOIN (SELECT ${vtimeOf(queue)} AS t) v
    LEFT JOIN task_slot_turns s ON s.queue = ${queue} AND s.tenant = r.tenant
    LEFT JOIN (
      SELECT ${tenantOf('k')} AS tenant, count(*) AS n
      FROM tasks o JOIN tokens k ON k.id = o.token_id
      WHERE o.slot_queue = ${queue} AND o.state IN ${OPEN_STATES}
      GROUP BY ${tenantOf('k')}
    ) o ON o.tenant = r.tenant`;
}

/** The queue's tasks open upstream or being submitted. */
export const openCount = (queue: string) =>
  sql`(SELECT count(*) FROM tasks o WHERE o.slot_queue = ${queue} AND o.state IN ${OPEN_STATES})`;

/** The queue's submits in flight (a leased `submitting` row; one left to the lost-submit recovery is not). */
const inFlight = (queue: string, now: number) =>
  sql`(SELECT count(*) FROM tasks f WHERE f.slot_queue = ${queue} AND f.state = 'submitting' AND f.lease_until >= ${now})`;

export interface Room {
  queue: string;
  /** The operator's task_slots (null: not set, learnt from the upstream's refusals). */
  limit: number | null;
  /** Submits of one queue in flight at once. */
  submits: number;
  now: number;
}

/**
 * How many more of the queue's tasks may move on to be submitted now: within the task_slots when set, and the
 * submits in flight at once; without task_slots, one at a time while parked tasks wait (the upstream said the account
 * is full, or the queue is congested): a probe in turn order, not a burst of refusals.
 */
export function roomOf(r: Room): RawBuilder<number> {
  const submits =
    r.limit === null
      ? sql`(CASE WHEN EXISTS (SELECT 1 FROM ranked b WHERE b.parked = 1) THEN 1 ELSE ${r.submits} END)`
      : sql`${r.submits}`;
  const byFlight = sql`(${submits} - ${inFlight(r.queue, r.now)})`;
  if (r.limit === null) return sql<number>`${byFlight}`;
  const bySlots = sql`(${r.limit} - ${openCount(r.queue)})`;
  return sql<number>`(CASE WHEN ${byFlight} < ${bySlots} THEN ${byFlight} ELSE ${bySlots} END)`;
}
