import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// A tokens-per-minute limit per client token (limits/rate-limiter.ts); null = none, as for the other limits.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('tokens').addColumn('tpm_limit', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tokens').dropColumn('tpm_limit').execute();
}
