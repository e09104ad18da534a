// The tasks table. Every state change is a compare-and-set (`WHERE id = ? AND state = ?`) so two
// pollers (or a poller and an on-demand GET) can never both move a task; claims use leases. A change that carries
// timeline events writes them in its own transaction (task-events.ts); one without events is a single statement.
import { sql, type Kysely } from 'kysely';
import {
  OPEN_STATES,
  STICKY_STATES,
  type TaskEvent,
  type TaskEventInput,
  type TaskRecord,
  type TaskState,
} from '../../tasks/vocabulary.ts';
import type { Dialect } from '../dialect.ts';
import { newestFirst, whereList } from '../keyset.ts';
import type { Database } from '../schema.ts';
import { isLiteralCount } from '../sqlite-literal-limits.ts';
import { listTaskEvents, writeTaskEvents } from './task-events.ts';
import { ClaimStatements, OPEN_SQL, type PollSchedule } from './task-claim.ts';
import { patchRow, storedFamily, toPollRecord, toTaskRecord, type TaskPatch } from './task-rows.ts';

export {
  storedFamily,
  toTaskRecord,
  type AdminTasksFilter,
  type ListTasksFilter,
  type NewTaskRow,
  type TaskPatch,
} from './task-rows.ts';
import type { AdminTasksFilter, ListTasksFilter, NewTaskRow } from './task-rows.ts';

export type { PollSchedule } from './task-claim.ts';

export class TasksRepo {
  private readonly claims: ClaimStatements;

  constructor(
    /** Also read by the list rounds (repos/task-accounts.ts). */
    readonly db: Kysely<Database>,
    dialect: Dialect,
  ) {
    this.claims = new ClaimStatements(db, dialect);
  }

  /** Write a new task (`submitting`, or `waiting` for a slot) with its `created` event. */
  async insert(
    t: NewTaskRow,
    now = Date.now(),
    events: readonly TaskEventInput[] = [{ kind: 'created' }],
  ): Promise<TaskRecord> {
    const row = {
      id: t.id,
      family: storedFamily(t.family),
      kind: t.kind,
      token_id: t.tokenId,
      model: t.model,
      billing_model: t.billingModel,
      upstream_model: t.upstreamModel,
      channel_id: t.channelId,
      upstream_task_id: null,
      state: t.waiting ? 'waiting' : 'submitting',
      upstream_status: null,
      progress: null,
      request: JSON.stringify(t.request ?? null),
      result: null,
      usage: JSON.stringify(t.estimate),
      error: null,
      external_task_id: t.externalTaskId,
      callback_url: t.callbackUrl,
      session_id: t.sessionId,
      request_id: t.requestId,
      upstream_request_id: null,
      tier: t.tier,
      hold_amount: 0,
      next_poll_at: t.nextPollAt,
      poll_attempts: 0,
      lease_owner: t.leaseOwner,
      lease_until: t.leaseUntil,
      created_at: now,
      updated_at: now,
      finished_at: null,
      checked_at: null,
      slot_queue: t.waiting?.slotQueue ?? null,
      submit_body: t.waiting?.submitBody ?? null,
    };
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('tasks').values(row).execute();
      await writeTaskEvents(trx, t.id, { from: null, to: row.state as TaskState, upstreamStatus: null }, events, now);
    });
    return toTaskRecord(row);
  }

  async get(id: string): Promise<TaskRecord | null> {
    const r = await this.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toTaskRecord(r) : null;
  }

  /** The task if this token owns it; null otherwise (callers answer 404 either way). */
  async getFor(id: string, tokenId: string): Promise<TaskRecord | null> {
    const r = await this.db
      .selectFrom('tasks')
      .selectAll()
      .where('id', '=', id)
      .where('token_id', '=', tokenId)
      .executeTakeFirst();
    return r ? toTaskRecord(r) : null;
  }

  /** The token's task of this kind (or of any of these kinds) with this external id. */
  async findByExternal(
    tokenId: string,
    kind: string | readonly string[],
    externalTaskId: string,
  ): Promise<TaskRecord | null> {
    const r = await this.db
      .selectFrom('tasks')
      .selectAll()
      .where('token_id', '=', tokenId)
      .where('kind', 'in', typeof kind === 'string' ? [kind] : kind)
      .where('external_task_id', '=', externalTaskId)
      .executeTakeFirst();
    return r ? toTaskRecord(r) : null;
  }

  /** One token's tasks (not those still being submitted), newest first. */
  async listFor(tokenId: string, f: ListTasksFilter = {}): Promise<TaskRecord[]> {
    let q = this.db.selectFrom('tasks').selectAll().where('state', '!=', 'submitting');
    const one = typeof f.kind === 'string' ? f.kind : undefined;
    if (f.kind !== undefined && typeof f.kind !== 'string') q = q.where('kind', 'in', f.kind);
    q = whereList(q, 'tasks', {
      tokenId,
      equal: { family: f.family && storedFamily(f.family), kind: one },
      after: f.after,
    });
    q = newestFirst(q, 'tasks').limit(f.limit ?? 20);
    if (f.offset) q = q.offset(f.offset);
    return (await q.execute()).map(toTaskRecord);
  }

  /** Every token's tasks, newest first by (created_at, id): a cursor never skips tasks created in the same ms. */
  async listAdmin(f: AdminTasksFilter): Promise<TaskRecord[]> {
    const q = whereList(this.db.selectFrom('tasks').selectAll(), 'tasks', {
      ...f,
      equal: { state: f.state, kind: f.kind },
    });
    return (await newestFirst(q, 'tasks').limit(f.limit).execute()).map(toTaskRecord);
  }

  /** Run `fn` in one store transaction: what it writes through this repo and the meter (`within`) commits together. */
  inTransaction<R>(fn: (trx: Kysely<Database>) => Promise<R>): Promise<R> {
    return this.db.transaction().execute(fn);
  }

  /**
   * Compare-and-set: apply the patch only while the task is still in `from` (and, when `whileStatus` is given, its
   * upstream status still that: an upstream status change is then recorded once). True when it applied. The events
   * are written in the same transaction, only when the patch applied; without events it is one statement. `within`:
   * the caller's transaction (inTransaction), which the patch and its events join.
   */
  async transition(
    id: string,
    from: TaskState,
    patch: TaskPatch,
    now = Date.now(),
    events: readonly TaskEventInput[] = [],
    whileStatus?: string | null,
    within?: Kysely<Database>,
  ): Promise<boolean> {
    const apply = async (db: Kysely<Database>): Promise<boolean> => {
      if (!(await this.update(db, id, from, patch, now, whileStatus))) return false;
      if (events.length > 0)
        await writeTaskEvents(
          db,
          id,
          { from, to: patch.state ?? from, upstreamStatus: patch.upstreamStatus ?? null },
          events,
          now,
        );
      return true;
    };
    if (within) return apply(within);
    if (events.length === 0) return this.update(this.db, id, from, patch, now, whileStatus);
    return this.db.transaction().execute(apply);
  }

  private async update(
    db: Kysely<Database>,
    id: string,
    from: TaskState,
    patch: TaskPatch,
    now: number,
    whileStatus: string | null | undefined,
  ): Promise<boolean> {
    let q = db.updateTable('tasks').set(patchRow(patch, now)).where('id', '=', id).where('state', '=', from);
    if (whileStatus !== undefined)
      q = whileStatus === null ? q.where('upstream_status', 'is', null) : q.where('upstream_status', '=', whileStatus);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Delete the row and its events (only while it is in `onlyIn`, when given). True when a row was deleted. */
  async delete(id: string, onlyIn?: TaskState): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      let q = trx.deleteFrom('tasks').where('id', '=', id);
      if (onlyIn) q = q.where('state', '=', onlyIn);
      if (Number((await q.executeTakeFirst()).numDeletedRows) !== 1) return false;
      await trx.deleteFrom('task_events').where('task_id', '=', id).execute();
      return true;
    });
  }

  /** The task's timeline, oldest first. */
  events(id: string): Promise<TaskEvent[]> {
    return listTaskEvents(this.db, id);
  }

  /**
   * Record an on-demand check of one task the upstream has (queued or in progress: a client's read, an upstream notice,
   * a list round's finish) and read it as it is now; null when it is not such a task (finished, or still being
   * submitted, which only its submitter or the lost-submit recovery under a lease may move). No lease: the poll's
   * outcome is a compare-and-set and a charge is
   * keyed by the task, so a poll by the task's poller at the same moment moves and charges it once (the upstream may
   * be asked twice). The check time keeps another read within TOLLWAY_TASK_REFRESH_STALE_MS from asking again.
   */
  async checkUpstream(id: string, now = Date.now()): Promise<TaskRecord | null> {
    const r = await this.db
      .updateTable('tasks')
      .set({ checked_at: now })
      .where('id', '=', id)
      .where('state', 'in', [...STICKY_STATES])
      .returningAll()
      .executeTakeFirst();
    return r ? toTaskRecord(r) : null;
  }

  /** Drop this owner's leases on these tasks (a round's claimed tasks that are not sticky: see claimDue). */
  async unleaseMany(ids: readonly string[], owner: string): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      await this.db
        .updateTable('tasks')
        .set({ lease_owner: null, lease_until: null })
        .where('id', 'in', ids.slice(i, i + 500))
        .where('lease_owner', '=', owner)
        .execute();
    }
  }

  /** Hand back every open task this owner holds (graceful shutdown: another instance takes them over at once). */
  async unleaseAll(owner: string): Promise<void> {
    await sql`UPDATE tasks SET lease_owner = NULL, lease_until = NULL WHERE state IN ${OPEN_SQL} AND lease_owner = ${owner}`.execute(
      this.db,
    );
  }

  /** Make an open task due now (an upstream callback said it changed): the next poller round picks it up. */
  async markDue(id: string, now = Date.now()): Promise<boolean> {
    const r = await this.db
      .updateTable('tasks')
      .set({ next_poll_at: now })
      .where('id', '=', id)
      .where('state', 'in', [...OPEN_STATES])
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** The earliest next poll time among open tasks (null when none is open): the poller sleeps until then. */
  async nextDueAt(): Promise<number | null> {
    const r = await sql<{
      t: number | string | null;
    }>`SELECT min(next_poll_at) AS t FROM tasks WHERE state IN ${OPEN_SQL}`.execute(this.db);
    const t = r.rows[0]?.t;
    return t === null || t === undefined ? null : Number(t);
  }

  /**
   * Claim up to `limit` due open tasks for `owner`, in one statement that also schedules each task's next poll and
   * records the check (task-claim.ts): a poll that then finds nothing changed needs no write of its own. The due head
   * is read in next_poll_at order from the partial index of open tasks.
   *
   * Leases are sticky: a queued or running task stays with the owner that polled it (its lease outlasts the next poll
   * by `leaseMs`, renewed by each claim), so a round hands nothing back and costs one write per task. Another owner
   * takes a task only when its lease has run out: its owner stopped (it hands its tasks back: unleaseAll) or missed
   * the task's poll by `leaseMs` (a crash). A task still being submitted or waiting for a slot is leased for the round
   * only (`leaseMs`; the round hands it back), as a submit in flight is told apart by its lease (repos/slot-queue.ts).
   * SQLite has a single writer, and the statement is atomic.
   */
  async claimDue(
    owner: string,
    leaseMs: number,
    limit: number,
    schedule: PollSchedule,
    now = Date.now(),
  ): Promise<TaskRecord[]> {
    // A literal: a bound LIMIT makes SQLite compile the statement again on every run (sqlite-literal-limits.ts).
    if (!isLiteralCount(limit)) throw new RangeError(`claimDue: ${limit} is not a row count`);
    return (await this.db.executeQuery(this.claims.bind(limit, schedule, { owner, leaseMs, now }))).rows.map(
      toPollRecord,
    );
  }
}
