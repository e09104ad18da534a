import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// Credit that arrives by itself (core/credit/). `credit_batches`: a batch of redemption codes worth `amount` each
// until `expires_at`. `credit_codes`: one row per code, found by the SHA-256 of the code (the code itself is shown
// once, never stored); `redeemed_at` is set once, by a compare-and-set, with the holder credited. The credit itself
// is a ledger line keyed by the code's id, so a code credits once whatever races. `payment_events`: each payment
// provider event as received and its outcome; the unique event id makes a retried delivery the same row (the ledger
// key `stripe:<event id>` is what makes it credit once).
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('credit_batches')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(200)')
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_by', 'varchar(200)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('credit_batches_list').on('credit_batches').columns(['created_at', 'id']).execute();
  await db.schema
    .createTable('credit_codes')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('batch_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('hint', 'varchar(16)', (c) => c.notNull())
    .addColumn('redeemed_at', 'bigint')
    .addColumn('holder_kind', 'varchar(16)')
    .addColumn('holder_id', 'varchar(64)')
    .addColumn('token_id', 'varchar(64)')
    .addColumn('request_id', 'varchar(128)')
    .execute();
  await db.schema.createIndex('credit_codes_batch').on('credit_codes').columns(['batch_id', 'id']).execute();
  await db.schema.createIndex('credit_codes_redeemed').on('credit_codes').columns(['redeemed_at', 'id']).execute();
  await db.schema
    .createTable('payment_events')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('provider', 'varchar(32)', (c) => c.notNull())
    .addColumn('event_id', 'varchar(255)', (c) => c.unique())
    .addColumn('type', 'varchar(100)')
    .addColumn('account_id', 'varchar(255)')
    .addColumn('amount_minor', 'bigint')
    .addColumn('currency', 'varchar(16)')
    .addColumn('amount', 'bigint')
    .addColumn('outcome', 'varchar(32)', (c) => c.notNull())
    .addColumn('detail', 'varchar(500)')
    .addColumn('deliveries', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payment_events_list').on('payment_events').columns(['created_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('payment_events').ifExists().execute();
  await db.schema.dropTable('credit_codes').ifExists().execute();
  await db.schema.dropTable('credit_batches').ifExists().execute();
}
