// The parallel-task queues (tasks/slot-queue.ts): tasks waiting in the gateway for a free slot of their upstream
// account
// and model version. Waiting tasks move on to be submitted in fair turns across customers (slot-turns.ts), several at
// once, within the room the queue has (roomOf). The move is one compare-and-set statement: on SQLite a single writer;
// on PostgreSQL the queue's moves are serialised by a transaction lock on the queue's name, so each one counts the
// moves committed before it — instances sharing the store never overfill a queue nor move one task twice.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { parseJson } from '../json.ts';
import type { Database } from '../schema.ts';
import { holderGone, holderLive, lockHolder, type HolderGone } from './slot-holders.ts';
import { openCount, rankedWaiting, roomOf, TENANT_WEIGHT, tenantOfTask } from './slot-turns.ts';
import { writeTaskEvents } from './task-events.ts';

/** Where a waiting task stands in its queue (why it was not moved on). */
export interface Standing {
  /** Parked tasks (served by the poller) whose turn comes before this one's. */
  parkedAhead: number;
  /** The queue's tasks open upstream or being submitted. */
  open: number;
}

/** A queue task the upstream has not taken: its stored creation is dropped once taken (migration 032's index). */
const UNSENT = sql`w.state IN ('waiting', 'submitting') AND w.submit_body IS NOT NULL`;

export interface Turn {
  id: string;
  queue: string;
  owner: string;
  leaseMs: number;
  /** The operator's task_slots for the queue's account (null: not set). */
  limit: number | null;
  /** Submits of one queue in flight at once. */
  submits: number;
  /** A creation request's own task: it never goes before a parked task whose turn comes first. */
  inline?: boolean;
  /** The hold just placed (a creation request), stored with the move. */
  holdAmount?: number;
}

export class SlotQueueRepo {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Move a waiting task held by `owner` to `submitting` (leased until the submit deadline) when its turn is within
   * the queue's room. True when it moved.
   */
  async promote(t: Turn, now = Date.now()): Promise<boolean> {
    const hold = t.holdAmount === undefined ? sql`` : sql`, hold_amount = ${t.holdAmount}`;
    const room = roomOf({ queue: t.queue, limit: t.limit, submits: t.submits, now });
    const notPastParked = t.inline
      ? sql`AND z.rk < COALESCE((SELECT MIN(p.rk) FROM ranked p WHERE p.parked = 1), z.rk + 1)`
      : sql``;
    // The move and its timeline event commit together (task-events.ts), as every task change does.
    return this.db.transaction().execute(async (trx) => {
      if (this.dialect === 'postgres') {
        await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`slot:${t.queue}`}, 0))`.execute(trx);
        await lockHolder(trx, t.id);
      }
      const r = await sql<{ id: string }>`
      WITH ranked AS (${rankedWaiting(t.queue, now)})
      UPDATE tasks SET state = 'submitting', lease_owner = ${t.owner}, lease_until = ${now + t.leaseMs}, next_poll_at = ${now + t.leaseMs}, updated_at = ${now}${hold}
      WHERE id = ${t.id} AND state = 'waiting' AND lease_owner = ${t.owner} AND ${holderLive(now)}
        AND EXISTS (SELECT 1 FROM ranked z WHERE z.id = ${t.id} AND z.rk <= ${room} ${notPastParked})
      RETURNING id`.execute(trx);
      if (r.rows.length !== 1) return false;
      await this.served(trx, t.queue, t.id);
      await writeTaskEvents(
        trx,
        t.id,
        { from: 'waiting', to: 'submitting', upstreamStatus: null },
        [{ kind: 'slot', detail: `a parallel-task slot is free (${t.queue})` }],
        now,
      );
      return true;
    });
  }

  /**
   * The task's customer was served a turn: its served time moves from where its turn started (its own served time,
   * or the queue's present if that is later) by one turn, and the queue's present to that start. Customers at or
   * behind the present are dropped (the same as no row).
   */
  private async served(trx: Kysely<Database>, queue: string, id: string): Promise<void> {
    const tenant = (await sql<{ t: string }>`SELECT ${tenantOfTask(id)} AS t`.execute(trx)).rows[0]?.t;
    if (!tenant) return;
    const q = await trx.selectFrom('task_slot_queues').select('vtime').where('queue', '=', queue).executeTakeFirst();
    const mine = await trx
      .selectFrom('task_slot_turns')
      .select('served')
      .where('queue', '=', queue)
      .where('tenant', '=', tenant)
      .executeTakeFirst();
    const present = Number(q?.vtime ?? 0);
    const start = Math.max(present, Number(mine?.served ?? present));
    await trx
      .insertInto('task_slot_queues')
      .values({ queue, vtime: start })
      .onConflict((oc) => oc.column('queue').doUpdateSet({ vtime: start }))
      .execute();
    await trx.deleteFrom('task_slot_turns').where('queue', '=', queue).where('served', '<=', start).execute();
    const served = start + 1 / TENANT_WEIGHT;
    await trx
      .insertInto('task_slot_turns')
      .values({ queue, tenant, served })
      .onConflict((oc) => oc.columns(['queue', 'tenant']).doUpdateSet({ served }))
      .execute();
  }

  /** The upstream refused the task's creation: its turn is given back to its customer (it waits at the same place). */
  async unserved(queue: string, id: string): Promise<void> {
    await sql`UPDATE task_slot_turns SET served = served - ${1 / TENANT_WEIGHT}
      WHERE queue = ${queue} AND tenant = ${tenantOfTask(id)}`.execute(this.db);
  }

  /** Where the task stands in its queue now (read after a promote that did not move it). */
  async standing(id: string, queue: string, now = Date.now()): Promise<Standing> {
    const r = await sql<{ parked: number | string | null; open: number | string }>`
      WITH ranked AS (${rankedWaiting(queue, now)})
      SELECT
        (SELECT count(*) FROM ranked p WHERE p.parked = 1 AND p.rk < (SELECT m.rk FROM ranked m WHERE m.id = ${id})) AS parked,
        ${openCount(queue)} AS open`.execute(this.db);
    const row = r.rows[0];
    return { parkedAhead: Number(row?.parked ?? 0), open: Number(row?.open ?? 0) };
  }

  /**
   * Make the tasks whose turn is next due now, as many as the queue has room for (at least one: a slot may have
   * freed that the upstream alone counts): the next poller round tries them.
   */
  async markHeadDue(queue: string, limit: number | null, submits: number, now = Date.now()): Promise<void> {
    const room = roomOf({ queue, limit, submits, now });
    await sql`
      WITH ranked AS (${rankedWaiting(queue, now)})
      UPDATE tasks SET next_poll_at = ${now}
      WHERE id IN (SELECT z.id FROM ranked z WHERE z.rk <= (CASE WHEN ${room} > 1 THEN ${room} ELSE 1 END)) AND next_poll_at > ${now}`.execute(
      this.db,
    );
  }

  /** Why the task's holder may no longer spend (slot-holders.ts); null when it may. */
  holderGone(tokenId: string, now = Date.now()): Promise<HolderGone | null> {
    return holderGone(this.db, tokenId, now);
  }

  /**
   * Tasks of the queues (any queue) the upstream has not taken yet: the token's, and its account's (0 when it has
   * none). Waiting ones, and those being submitted with their creation still kept — a creation request's first try,
   * or a waiting task's retried creation — so a task out on a retry still counts (index tasks_unsent_token).
   */
  async unsentOf(tokenId: string): Promise<{ token: number; account: number }> {
    const r = await sql<{ token: number | string; account: number | string }>`
      SELECT
        (SELECT count(*) FROM tasks w WHERE w.token_id = ${tokenId} AND ${UNSENT}) AS token,
        (SELECT count(*) FROM tasks w JOIN tokens k ON k.id = w.token_id
          WHERE ${UNSENT} AND k.account_id = (SELECT t.account_id FROM tokens t WHERE t.id = ${tokenId})) AS account`.execute(
      this.db,
    );
    return { token: Number(r.rows[0]?.token ?? 0), account: Number(r.rows[0]?.account ?? 0) };
  }

  /** The upstream creation a waiting task keeps (null once submitted or ended). */
  async submitBody(id: string): Promise<unknown> {
    const r = await this.db.selectFrom('tasks').select('submit_body').where('id', '=', id).executeTakeFirst();
    return r?.submit_body ? parseJson(r.submit_body) : null;
  }
}
