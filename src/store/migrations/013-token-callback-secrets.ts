import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// Each token signs its client callbacks with its own Standard Webhooks secret (`whsec_…`), sealed with the
// deployment's SecretBox like the channel keys: the gateway must sign with it, so it is kept readable, never hashed.
// A rotation keeps the secret it replaced signing too until previous_callback_secret_until.
// Tokens made before this migration have none: the migration cannot seal (TOLLWAY_SECRET is not the store's), so
// their first callback gives them one (src/tasks/callback-signing.ts), and `callback_secret_issued_at` stays null
// until the operator issues one with a rotation — the only way its holder can learn it.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('tokens').addColumn('callback_secret', 'text').execute();
  await db.schema.alterTable('tokens').addColumn('callback_secret_issued_at', 'bigint').execute();
  await db.schema.alterTable('tokens').addColumn('previous_callback_secret', 'text').execute();
  await db.schema.alterTable('tokens').addColumn('previous_callback_secret_until', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tokens').dropColumn('previous_callback_secret_until').execute();
  await db.schema.alterTable('tokens').dropColumn('previous_callback_secret').execute();
  await db.schema.alterTable('tokens').dropColumn('callback_secret_issued_at').execute();
  await db.schema.alterTable('tokens').dropColumn('callback_secret').execute();
}
