import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// Indexes for the ledger's task filter and for the reaper of reservations left open (holds by state and age). An
// index on the ledger is written with every charge on the request path: the task index is partial (charges of calls
// answered at once have no task), and time and model filters use the existing token/time index (docs/api.md).
const INDEXES: Array<[name: string, table: string, columns: string[]]> = [
  ['holds_state_time', 'holds', ['state', 'created_at']],
];

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  for (const [name, table, columns] of INDEXES) await db.schema.createIndex(name).on(table).columns(columns).execute();
  await db.schema
    .createIndex('ledger_task')
    .on('ledger')
    .column('task_id')
    .where(sql.ref('task_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of ['ledger_task', ...INDEXES.map(([n]) => n)]) await db.schema.dropIndex(name).ifExists().execute();
}
