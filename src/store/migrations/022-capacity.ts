import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// Upstream capacity: a channel's stated limits per model (JSON {"<model>"|"*": {rpm, tpm, concurrency}}; null = none
// stated), and a customer account's weight in the fair share of a contended upstream (null = 1).
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('channels').addColumn('model_limits', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('weight', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('weight').execute();
  await db.schema.alterTable('channels').dropColumn('model_limits').execute();
}
