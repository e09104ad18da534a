import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// The upstream account a channel's key belongs to (null = the key is its own account), and an operator-set limit of
// parallel tasks per model version on that account (null = learnt from the upstream's refusals).
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('channels').addColumn('account', 'text').execute();
  await db.schema.alterTable('channels').addColumn('task_slots', 'integer').execute();
  // A task list names upstream task ids: our open tasks are found by them.
  await db.schema
    .createIndex('tasks_open_upstream')
    .on('tasks')
    .column('upstream_task_id')
    .where(sql<boolean>`state in ('queued', 'in_progress')`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_open_upstream').ifExists().execute();
  await db.schema.alterTable('channels').dropColumn('task_slots').execute();
  await db.schema.alterTable('channels').dropColumn('account').execute();
}
