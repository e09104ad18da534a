import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// Indexes for the admin filters of the ledger (by task, by model over time, by time) and for the reaper of
// reservations left open (holds by state and age).
const INDEXES: Array<[name: string, table: string, columns: string[]]> = [
  ['ledger_task', 'ledger', ['task_id']],
  ['ledger_model_time', 'ledger', ['model', 'created_at']],
  ['ledger_time', 'ledger', ['created_at']],
  ['holds_state_time', 'holds', ['state', 'created_at']],
];

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  for (const [name, table, columns] of INDEXES) await db.schema.createIndex(name).on(table).columns(columns).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name] of INDEXES) await db.schema.dropIndex(name).ifExists().execute();
}
