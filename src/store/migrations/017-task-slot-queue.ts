import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// A task may wait in the gateway for a free parallel-task slot of its upstream account and model version (Kling):
// state `waiting`, in a queue named by `slot_queue`, with the upstream creation body kept in `submit_body` until it is
// submitted (a restart must not lose it). The poller's due index takes waiting tasks too; the queue's head and its
// open tasks are read from their own index (only tasks that have a queue are in it).
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('slot_queue', 'text').execute();
  await db.schema.alterTable('tasks').addColumn('submit_body', 'text').execute();
  await db.schema.dropIndex('tasks_open_due').ifExists().execute();
  await db.schema
    .createIndex('tasks_open_due')
    .on('tasks')
    .column('next_poll_at')
    .where(sql<boolean>`state in ('waiting', 'submitting', 'queued', 'in_progress')`)
    .execute();
  await db.schema
    .createIndex('tasks_slot_queue')
    .on('tasks')
    .columns(['slot_queue', 'state', 'created_at', 'id'])
    .where(sql<boolean>`slot_queue is not null`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_slot_queue').ifExists().execute();
  await db.schema.dropIndex('tasks_open_due').ifExists().execute();
  await db.schema
    .createIndex('tasks_open_due')
    .on('tasks')
    .column('next_poll_at')
    .where(sql<boolean>`state in ('submitting', 'queued', 'in_progress')`)
    .execute();
  await db.schema.alterTable('tasks').dropColumn('submit_body').execute();
  await db.schema.alterTable('tasks').dropColumn('slot_queue').execute();
}
