// The task_events table (migration 011): each task's timeline. Rows are written only by TasksRepo, inside the
// transaction of the task-row change they record; the money events read their figures from the ledger line or the
// hold row in that same transaction, so the timeline never claims a charge or a release that did not happen.
import type { Insertable, Kysely } from 'kysely';
import type { TaskEvent, TaskEventInput, TaskEventKind, TaskState } from '../../tasks/vocabulary.ts';
import { clip } from '../clip.ts';
import type { Database, TaskEventsTable } from '../schema.ts';

/** The task-row change the events go with: from/to states and the upstream status it set (null when it set none). */
export interface TaskChange {
  from: TaskState | null;
  to: TaskState;
  upstreamStatus: string | null;
}

/** Write the events of one change, in the caller's transaction (`trx`), all at `at`. */
export async function writeTaskEvents(
  trx: Kysely<Database>,
  taskId: string,
  change: TaskChange,
  events: readonly TaskEventInput[],
  at: number,
): Promise<void> {
  const rows: Array<Insertable<TaskEventsTable>> = [];
  const base = {
    task_id: taskId,
    at,
    from_state: null,
    to_state: null,
    upstream_status: null,
    amount: null,
    ledger_id: null,
    detail: null,
  };
  for (const e of events) {
    if (e.kind === 'charged') {
      const line = await trx
        .selectFrom('ledger')
        .select(['id', 'amount'])
        .where('idempotency_key', '=', e.ledgerKey)
        .executeTakeFirst();
      if (line) rows.push({ ...base, kind: 'charged', amount: Number(line.amount), ledger_id: Number(line.id) });
    } else if (e.kind === 'hold_released') {
      const hold = await trx
        .selectFrom('holds')
        .select(['amount', 'state'])
        .where('hold_key', '=', taskId)
        .executeTakeFirst();
      if (hold?.state === 'released') rows.push({ ...base, kind: 'hold_released', amount: Number(hold.amount) });
    } else {
      rows.push({
        ...base,
        kind: e.kind,
        from_state: change.from,
        to_state: change.to,
        upstream_status: clip(change.upstreamStatus, 32),
        amount: e.amount ?? null,
        detail: clip(e.detail ?? null, 500),
      });
    }
  }
  if (rows.length > 0) await trx.insertInto('task_events').values(rows).execute();
}

/** A task's events, oldest first (events of one change share their time: then in the order written). */
export async function listTaskEvents(db: Kysely<Database>, taskId: string): Promise<TaskEvent[]> {
  const rows = await db
    .selectFrom('task_events')
    .selectAll()
    .where('task_id', '=', taskId)
    .orderBy('at')
    .orderBy('id')
    .execute();
  const n = (v: number | null) => (v === null ? null : Number(v));
  return rows.map((r) => ({
    id: Number(r.id),
    taskId: r.task_id,
    at: Number(r.at),
    kind: r.kind as TaskEventKind,
    from: r.from_state as TaskState | null,
    to: r.to_state as TaskState | null,
    upstreamStatus: r.upstream_status,
    amount: n(r.amount),
    ledgerId: n(r.ledger_id),
    detail: r.detail,
  }));
}
