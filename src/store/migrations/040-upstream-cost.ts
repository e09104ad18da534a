import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// What the upstream charged us for a call, beside what we charged for it: a ledger line's upstream cost (micro-units,
// null: unknown), priced from a channel's stated cost (channels.cost, JSON {per_unit?, per_second?, price_ratio?,
// tolerance?}). Bills show the margin from them; reconcile flags a task whose ratio is off.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('ledger').addColumn('upstream_cost', 'bigint').execute();
  await db.schema.alterTable('channels').addColumn('cost', 'text').execute();
}

export async function down(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('ledger').dropColumn('upstream_cost').execute();
  await db.schema.alterTable('channels').dropColumn('cost').execute();
}
