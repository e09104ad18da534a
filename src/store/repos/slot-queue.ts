// The parallel-task queues (tasks/slot-queue.ts): tasks waiting in the gateway for a free slot of their upstream account
// and model version, first come first served. Only the oldest waiting task of a queue may move on to be submitted, one
// submit in flight per queue at a time, and — when the operator set the account's task_slots — only while fewer of the
// queue's tasks are open upstream. All of it is one compare-and-set statement: instances sharing the store cannot
// both move a task, nor move two tasks of one queue at once (SQLite has a single writer; on PostgreSQL a concurrent
// statement that saw the same head finds it no longer waiting when it gets the row).
import { sql, type Kysely } from 'kysely';
import { parseJson } from '../json.ts';
import { writeTaskEvents } from './task-events.ts';
import type { Database } from '../schema.ts';

/** Where a waiting task stands in its queue (why it was not moved on). */
export interface Standing {
  /** Older tasks of the queue parked for the poller (waited once: not a creation request's first try): the queue is blocked. */
  parkedAhead: number;
  /** The queue's tasks open upstream or being submitted. */
  open: number;
}

const HEAD = (queue: string) => sql`(SELECT h.id FROM tasks h WHERE h.slot_queue = ${queue} AND h.state = 'waiting' ORDER BY h.created_at, h.id LIMIT 1)`;
const OPEN = (queue: string) => sql`(SELECT count(*) FROM tasks o WHERE o.slot_queue = ${queue} AND o.state IN ('submitting', 'queued', 'in_progress'))`;

export class SlotQueueRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Move a waiting task held by `owner` to `submitting` (leased until the submit deadline), when it is its queue's head,
   * no other submit of the queue is in flight (a leased `submitting` row: one left to the lost-submit recovery is not),
   * and the queue has fewer than `limit` open tasks (null: no count kept).
   * True when it moved. `holdAmount`: the hold just placed (a creation request), stored with the move.
   */
  async promote(id: string, queue: string, owner: string, leaseMs: number, limit: number | null, holdAmount?: number, now = Date.now()): Promise<boolean> {
    const hold = holdAmount === undefined ? sql`` : sql`, hold_amount = ${holdAmount}`;
    const capped = limit === null ? sql`` : sql`AND ${OPEN(queue)} < ${limit}`;
    // The move and its timeline event commit together (task-events.ts), as every task change does.
    return this.db.transaction().execute(async (trx) => {
      const r = await sql<{ id: string }>`
      UPDATE tasks SET state = 'submitting', lease_owner = ${owner}, lease_until = ${now + leaseMs}, next_poll_at = ${now + leaseMs}, updated_at = ${now}${hold}
      WHERE id = ${id} AND state = 'waiting' AND lease_owner = ${owner}
        AND id = ${HEAD(queue)}
        AND NOT EXISTS (SELECT 1 FROM tasks f WHERE f.slot_queue = ${queue} AND f.state = 'submitting' AND f.lease_until >= ${now})
        ${capped}
      RETURNING id`.execute(trx);
      if (r.rows.length !== 1) return false;
      await writeTaskEvents(
        trx,
        id,
        { from: 'waiting', to: 'submitting', upstreamStatus: null },
        [{ kind: 'slot', detail: `a parallel-task slot is free (${queue})` }],
        now,
      );
      return true;
    });
  }

  /** Where the task stands in its queue now (read after a promote that did not move it). */
  async standing(id: string, queue: string, createdAt: number, now = Date.now()): Promise<Standing> {
    // A creation request's row has no attempt yet and its lease; one whose request is gone (lease over) is parked too.
    const r = await sql<{ parked: number | string; open: number | string }>`
      SELECT
        (SELECT count(*) FROM tasks w WHERE w.slot_queue = ${queue} AND w.state = 'waiting'
           AND (w.created_at < ${createdAt} OR (w.created_at = ${createdAt} AND w.id < ${id}))
           AND (w.poll_attempts > 0 OR w.lease_until < ${now})) AS parked,
        ${OPEN(queue)} AS open`.execute(this.db);
    const row = r.rows[0];
    return { parkedAhead: Number(row?.parked ?? 0), open: Number(row?.open ?? 0) };
  }

  /** Make the queue's head due now (a slot may have freed, or the head changed): the next poller round tries it. */
  async markHeadDue(queue: string, now = Date.now()): Promise<void> {
    await sql`UPDATE tasks SET next_poll_at = ${now} WHERE id = ${HEAD(queue)} AND next_poll_at > ${now}`.execute(this.db);
  }

  /** The upstream creation a waiting task keeps (null once submitted or ended). */
  async submitBody(id: string): Promise<unknown> {
    const r = await this.db.selectFrom('tasks').select('submit_body').where('id', '=', id).executeTakeFirst();
    return r?.submit_body ? parseJson(r.submit_body) : null;
  }
}
