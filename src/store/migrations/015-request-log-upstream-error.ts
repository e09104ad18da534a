import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// The upstream's own words on a request it refused (status, code and message: they may name its models or hosts, so
// clients never see them): kept on the request-log row for operators, as the request's log line carries them.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('request_log').addColumn('upstream_error', 'varchar(1000)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('request_log').dropColumn('upstream_error').execute();
}
