import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// A task's hold keeps the prices it was created at (pricing/price-terms.ts): the model's list price and its price
// group's terms then, JSON. Its settlement charges at them, so a later price or group change does not reach it.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('holds').addColumn('price_terms', 'text').execute();
}

export async function down(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('holds').dropColumn('price_terms').execute();
}
