import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// DELETE /v1/videos/{id} hides a video from its owner (not listed, not served) while the operator keeps the task
// and its charge: `tasks.deleted_at`. Reference media a client uploads with POST /v1/videos (a file part or a data:
// URL) are kept in `video_inputs` until they expire, served to the upstream at a signed gateway address; the bytes
// are base64 text, the same in both stores.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('deleted_at', 'bigint').execute();
  await db.schema
    .createTable('video_inputs')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('token_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('content_type', 'varchar(64)', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('video_inputs_expiry').on('video_inputs').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('video_inputs').ifExists().execute();
  await db.schema.alterTable('tasks').dropColumn('deleted_at').execute();
}
