import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// The poller's schedule: a partial index of open tasks by next poll time, so a claim reads the due head in order
// and stops at its limit (finished tasks, the bulk of the table, are not in it). It replaces the (state, next_poll_at)
// index, which every poll rewrote too. `checked_at` is when the upstream was last asked about the task: it is set by
// the same statement that claims or leases the task, so a poll that finds nothing changed writes nothing else.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('checked_at', 'bigint').execute();
  await db.schema.dropIndex('tasks_due').ifExists().execute();
  await db.schema
    .createIndex('tasks_open_due')
    .on('tasks')
    .column('next_poll_at')
    .where(sql<boolean>`state in ('submitting', 'queued', 'in_progress')`)
    .execute();
  // The client-callback outbox's scan for recently finished tasks with a callback address (every second) reads its own
  // index: neither open tasks nor tasks without a callback address are in it.
  await db.schema
    .createIndex('tasks_callback_finished')
    .on('tasks')
    .column('finished_at')
    .where(sql<boolean>`callback_url is not null`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_callback_finished').ifExists().execute();
  await db.schema.dropIndex('tasks_open_due').ifExists().execute();
  await db.schema.createIndex('tasks_due').on('tasks').columns(['state', 'next_poll_at']).execute();
  await db.schema.alterTable('tasks').dropColumn('checked_at').execute();
}
