import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// A rotated token keeps its identity (id, quota, usage) and gets a new secret; the previous secret may keep working
// for a grace period, so a client can switch without an outage. One previous secret at most, with its end.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('tokens').addColumn('previous_secret_hash', 'varchar(128)').execute();
  await db.schema.alterTable('tokens').addColumn('previous_secret_until', 'bigint').execute();
  // An unknown bearer is looked up here too (after the current secrets): keep that an index read.
  await db.schema.createIndex('tokens_previous_secret').on('tokens').column('previous_secret_hash').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tokens_previous_secret').ifExists().execute();
  await db.schema.alterTable('tokens').dropColumn('previous_secret_until').execute();
  await db.schema.alterTable('tokens').dropColumn('previous_secret_hash').execute();
}
