import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// The parallel-task queues take turns across customers (store/repos/slot-turns.ts) and submit several tasks at once.
// Each queue keeps its virtual time (`vtime`) and each of its customers the turns it was served (`served`): the
// state of the fair order, shared by instances. Waiting tasks are counted per token at creation (the cap on waiting
// tasks): an index of their own.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('task_slot_queues')
    .addColumn('queue', 'text', (c) => c.primaryKey())
    .addColumn('vtime', 'double precision', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('task_slot_turns')
    .addColumn('queue', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    .addColumn('served', 'double precision', (c) => c.notNull())
    .addPrimaryKeyConstraint('task_slot_turns_pk', ['queue', 'tenant'])
    .execute();
  await db.schema
    .createIndex('tasks_waiting_token')
    .on('tasks')
    .columns(['token_id'])
    .where(sql<boolean>`state = 'waiting'`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_waiting_token').ifExists().execute();
  await db.schema.dropTable('task_slot_turns').ifExists().execute();
  await db.schema.dropTable('task_slot_queues').ifExists().execute();
}
