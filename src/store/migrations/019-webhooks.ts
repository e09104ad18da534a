import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// Operator alert webhooks (src/alerts). `webhooks`: a target URL, the event types it wants, and its Standard Webhooks
// secret sealed with the deployment's SecretBox (the gateway signs with it, so it is kept readable, never hashed).
// `webhook_deliveries`: the outbox, one row per (webhook, event) — written in the transaction that decides the
// event, so a crash loses none; delivered by compare-and-set claims like client callbacks. `alert_marks`: one row
// per alert that must happen once across instances (a threshold crossed in a period, a failure-rate window, a
// breaker's state): its primary key is what makes two instances emit it exactly once. The task failure-rate alert
// counts the tasks finished in a recent window: the `tasks_finished` index reads only those.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('url', 'varchar(2000)', (c) => c.notNull())
    .addColumn('events', 'varchar(2000)', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('description', 'varchar(500)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('webhook_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('event_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('event_type', 'varchar(64)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_at', 'bigint', (c) => c.notNull())
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'varchar(500)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .addUniqueConstraint('webhook_deliveries_event', ['webhook_id', 'event_id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['state', 'next_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_list')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createTable('alert_marks')
    .addColumn('key', 'varchar(300)', (c) => c.primaryKey())
    .addColumn('state', 'varchar(16)')
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('tasks_finished')
    .on('tasks')
    .column('finished_at')
    .where(sql<boolean>`finished_at is not null`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_finished').ifExists().execute();
  await db.schema.dropTable('alert_marks').ifExists().execute();
  await db.schema.dropTable('webhook_deliveries').ifExists().execute();
  await db.schema.dropTable('webhooks').ifExists().execute();
}
