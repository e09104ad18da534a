import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { serialPk } from './001-init.ts';

// The history of every model's price (pricing/price-overrides.ts): one row per operator change, written in the
// same transaction as the override itself, with the effective price before and after it. The audit log records
// that a change was made; this table is what can be listed per model and trusted to have no gaps.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await serialPk(db.schema.createTable('price_changes'), dialect)
    .addColumn('model', 'varchar(200)', (c) => c.notNull())
    .addColumn('action', 'varchar(16)', (c) => c.notNull())
    .addColumn('old_price', 'text')
    .addColumn('new_price', 'text')
    .addColumn('actor', 'varchar(100)', (c) => c.notNull())
    .addColumn('request_id', 'varchar(64)')
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  // A model's history, newest first, paged by id.
  await db.schema.createIndex('price_changes_model_id').on('price_changes').columns(['model', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('price_changes').ifExists().execute();
}
