import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// The overview's spend is read from the ledger by time (repos/ledger-stats.ts), and bills filter it by time: an index
// on created_at. Lines are written in time order, so each insert appends at the index's right edge.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('ledger_time').on('ledger').columns(['created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ledger_time').ifExists().execute();
}
