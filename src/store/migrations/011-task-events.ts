import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// Each task's timeline: one row per state change (created, submitted, every upstream status change the poller saw,
// the outcome) and per money move (the charge with its ledger line, the hold released). A row is written in the same
// transaction as the task-row change it records (store/repos/task-events.ts), so neither exists without the other.
// Read by task id, oldest first: the (task_id, at) index.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('task_events')
    .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
      dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('task_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'varchar(32)', (c) => c.notNull())
    .addColumn('from_state', 'varchar(16)')
    .addColumn('to_state', 'varchar(16)')
    .addColumn('upstream_status', 'varchar(32)')
    .addColumn('amount', 'bigint')
    .addColumn('ledger_id', 'bigint')
    .addColumn('detail', 'varchar(500)')
    .execute();
  await db.schema.createIndex('task_events_task_time').on('task_events').columns(['task_id', 'at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('task_events').ifExists().execute();
}
