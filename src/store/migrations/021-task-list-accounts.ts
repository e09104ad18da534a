import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// The list rounds count an upstream account's open tasks per channel (repos/task-accounts.ts openTasksByChannel). A
// partial index of the tasks that query counts, in its grouping order and holding every column it reads (SQLite reads
// the predicate's columns too), answers it from the index alone: no table row read and no sort per open task.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('tasks_open_listed')
    .on('tasks')
    .columns(['kind', 'channel_id', 'created_at', 'state', 'upstream_task_id'])
    .where(sql<boolean>`state in ('queued', 'in_progress') and upstream_task_id is not null`)
    .execute();
}

export async function down(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.dropIndex('tasks_open_listed').ifExists().execute();
}
