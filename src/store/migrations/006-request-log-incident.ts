import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// Incident data on the request log: the channel that answered, every upstream attempt (JSON: channel, outcome, error
// code, latency) and the time to the first byte of the answer. The time index serves the admin list without a token
// filter (newest first, cursor (created_at, request_id)) and the retention sweeper, which deletes the oldest rows.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('request_log').addColumn('channel_id', 'varchar(64)').execute();
  await db.schema.alterTable('request_log').addColumn('attempts', 'text').execute();
  await db.schema.alterTable('request_log').addColumn('ttfb_ms', 'integer').execute();
  await db.schema.createIndex('request_log_time').on('request_log').columns(['created_at', 'request_id']).execute();
  // The admin list of tasks, newest first.
  await db.schema.createIndex('tasks_created').on('tasks').columns(['created_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tasks_created').ifExists().execute();
  await db.schema.dropIndex('request_log_time').ifExists().execute();
  for (const c of ['ttfb_ms', 'attempts', 'channel_id'])
    await db.schema.alterTable('request_log').dropColumn(c).execute();
}
