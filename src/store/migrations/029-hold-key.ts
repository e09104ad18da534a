import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// A hold's key is a task id, a call's reservation key (req_…) or an allowance's (lease_…): the column is named for
// what it holds, not for one of them. A rename keeps the primary key and every row.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('holds').renameColumn('task_id', 'hold_key').execute();
}

export async function down(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('holds').renameColumn('hold_key', 'task_id').execute();
}
