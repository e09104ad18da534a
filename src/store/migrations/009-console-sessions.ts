import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// Operator console sessions (core/console/sessions.ts): kept in the store, not in one process, so every instance
// accepts them and signing out revokes them everywhere. The cookie's secret is stored only as its SHA-256.
// The overview's closed time buckets are rolled up once (request_stats_buckets, per bucket size, model and token;
// request_stats_filled marks a rolled-up bucket), so a 30-day view reads the rollup and only the newest hours of the
// log, on its time index (migration 006) — see store/repos/request-stats.ts.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('console_sessions')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('secret_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('csrf', 'varchar(64)', (c) => c.notNull())
    .addColumn('client', 'varchar(100)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema
    .createTable('request_stats_buckets')
    .addColumn('bucket_ms', 'bigint', (c) => c.notNull())
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addColumn('model', 'varchar(200)', (c) => c.notNull())
    .addColumn('token_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('requests', 'bigint', (c) => c.notNull())
    .addColumn('errors', 'bigint', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('request_stats_buckets_pk', ['bucket_ms', 'bucket', 'model', 'token_id'])
    .execute();
  await db.schema
    .createTable('request_stats_filled')
    .addColumn('bucket_ms', 'bigint', (c) => c.notNull())
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('request_stats_filled_pk', ['bucket_ms', 'bucket'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('request_stats_filled').ifExists().execute();
  await db.schema.dropTable('request_stats_buckets').ifExists().execute();
  await db.schema.dropTable('console_sessions').ifExists().execute();
}
