import type { Kysely, CreateTableBuilder } from 'kysely';
import type { Dialect } from '../dialect.ts';

// An auto-increment primary key in each dialect's own idiom.
export function serialPk<T extends string>(
  b: CreateTableBuilder<T, never>,
  dialect: Dialect,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? b.addColumn('id', 'bigserial', (c) => c.primaryKey())
    : b.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

// Dialect-neutral: bigint for ms timestamps and micro-units; text for JSON.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('tokens')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('secret_hash', 'varchar(128)', (c) => c.notNull().unique())
    .addColumn('prefix', 'varchar(32)', (c) => c.notNull())
    .addColumn('models', 'text')
    .addColumn('quota', 'bigint')
    .addColumn('spent', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('held', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rpm_limit', 'integer')
    .addColumn('concurrency_limit', 'integer')
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('channels')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('kind', 'varchar(32)', (c) => c.notNull())
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('key_enc', 'text', (c) => c.notNull())
    .addColumn('models', 'text')
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('weight', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await serialPk(db.schema.createTable('audit_log'), dialect)
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor', 'varchar(100)', (c) => c.notNull())
    .addColumn('action', 'varchar(100)', (c) => c.notNull())
    .addColumn('target', 'varchar(200)')
    .addColumn('detail', 'text')
    .addColumn('request_id', 'varchar(64)')
    .execute();

  await db.schema
    .createTable('request_log')
    .addColumn('request_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('token_id', 'varchar(64)')
    .addColumn('model', 'varchar(200)')
    .addColumn('endpoint', 'varchar(200)', (c) => c.notNull())
    .addColumn('method', 'varchar(10)', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('usage', 'text')
    .addColumn('amount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('upstream_request_id', 'varchar(200)')
    .addColumn('error_code', 'varchar(100)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('request_log_token_time').on('request_log').columns(['token_id', 'created_at']).execute();

  await serialPk(db.schema.createTable('ledger'), dialect)
    .addColumn('idempotency_key', 'varchar(200)', (c) => c.notNull().unique())
    .addColumn('token_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('model', 'varchar(200)', (c) => c.notNull())
    .addColumn('kind', 'varchar(32)', (c) => c.notNull())
    .addColumn('quantities', 'text', (c) => c.notNull())
    .addColumn('unit_prices', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('request_id', 'varchar(64)')
    .addColumn('task_id', 'varchar(64)')
    .addColumn('upstream_request_id', 'varchar(200)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ledger_token_time').on('ledger').columns(['token_id', 'created_at']).execute();

  await db.schema
    .createTable('holds')
    .addColumn('task_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('token_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('tasks')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('family', 'varchar(4)', (c) => c.notNull())
    .addColumn('kind', 'varchar(32)', (c) => c.notNull())
    .addColumn('token_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('model', 'varchar(200)', (c) => c.notNull())
    .addColumn('billing_model', 'varchar(200)', (c) => c.notNull())
    .addColumn('upstream_model', 'varchar(200)', (c) => c.notNull())
    .addColumn('channel_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('upstream_task_id', 'varchar(200)')
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('upstream_status', 'varchar(32)')
    .addColumn('progress', 'integer')
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('result', 'text')
    .addColumn('usage', 'text')
    .addColumn('error', 'text')
    .addColumn('external_task_id', 'varchar(200)')
    .addColumn('callback_url', 'text')
    .addColumn('session_id', 'varchar(64)')
    .addColumn('request_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('upstream_request_id', 'varchar(200)')
    .addColumn('tier', 'varchar(16)')
    .addColumn('hold_amount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('next_poll_at', 'bigint', (c) => c.notNull())
    .addColumn('poll_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema.createIndex('tasks_due').on('tasks').columns(['state', 'next_poll_at']).execute();
  await db.schema
    .createIndex('tasks_owner')
    .on('tasks')
    .columns(['token_id', 'family', 'kind', 'created_at'])
    .execute();
  await db.schema
    .createIndex('tasks_external')
    .on('tasks')
    .columns(['token_id', 'kind', 'external_task_id'])
    .unique()
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('token_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('channel_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('upstream_session_id', 'varchar(200)', (c) => c.notNull())
    .addColumn('data', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('callbacks')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('task_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('token_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_at', 'bigint', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('callbacks_due').on('callbacks').columns(['state', 'next_at']).execute();

  await db.schema
    .createTable('catalogue_overrides')
    .addColumn('model', 'varchar(200)', (c) => c.primaryKey())
    .addColumn('entry', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'catalogue_overrides',
    'callbacks',
    'sessions',
    'tasks',
    'holds',
    'ledger',
    'request_log',
    'audit_log',
    'channels',
    'tokens',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
