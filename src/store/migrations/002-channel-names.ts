import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// Channel names identify channels for operators and for start-up provisioning (`env-dashscope`,
// `demo-kling` are found by name), so two channels must never share a name.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('channels_name_unique').on('channels').column('name').unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('channels_name_unique').ifExists().execute();
}
