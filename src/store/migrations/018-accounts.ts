import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// Customer accounts that own tokens, budgets that reset each calendar period, and price groups (docs/api.md, Accounts).
// - accounts: quota/spent/held move like a token's, by compare-and-set in the transaction that moves the token's;
// - budget_spend: one row per holder (token or account), period kind and period start, updated with each hold and
//   charge, so the spend of the current period is read from one row, never summed from the ledger;
// - holds remember the account, price group and budget rows they reserved against, so their close moves the same rows;
// - ledger lines keep the list price (list_amount; null = the amount charged) next to the amount charged.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('quota', 'bigint')
    .addColumn('spent', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('held', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('budgets', 'text')
    .addColumn('price_group', 'varchar(100)')
    .addColumn('time_zone', 'varchar(64)')
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('accounts_created').on('accounts').columns(['created_at', 'id']).execute();

  await db.schema
    .createTable('price_groups')
    .addColumn('name', 'varchar(100)', (c) => c.primaryKey())
    .addColumn('multiplier_ppm', 'bigint', (c) => c.notNull())
    .addColumn('prices', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('budget_spend')
    .addColumn('holder_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('period', 'varchar(8)', (c) => c.notNull())
    .addColumn('period_start', 'bigint', (c) => c.notNull())
    .addColumn('spent', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('held', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('budget_spend_pk', ['holder_id', 'period', 'period_start'])
    .execute();

  await db.schema.alterTable('tokens').addColumn('account_id', 'varchar(64)').execute();
  await db.schema.alterTable('tokens').addColumn('budgets', 'text').execute();
  await db.schema.createIndex('tokens_account').on('tokens').column('account_id').execute();

  await db.schema.alterTable('holds').addColumn('account_id', 'varchar(64)').execute();
  await db.schema.alterTable('holds').addColumn('price_group', 'varchar(100)').execute();
  await db.schema.alterTable('holds').addColumn('budget_rows', 'text').execute();

  await db.schema.alterTable('ledger').addColumn('account_id', 'varchar(64)').execute();
  await db.schema.alterTable('ledger').addColumn('list_amount', 'bigint').execute();
  await db.schema.alterTable('ledger').addColumn('price_group', 'varchar(100)').execute();
  await db.schema.createIndex('ledger_account_time').on('ledger').columns(['account_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ledger_account_time').ifExists().execute();
  for (const c of ['price_group', 'list_amount', 'account_id'])
    await db.schema.alterTable('ledger').dropColumn(c).execute();
  for (const c of ['budget_rows', 'price_group', 'account_id'])
    await db.schema.alterTable('holds').dropColumn(c).execute();
  await db.schema.dropIndex('tokens_account').ifExists().execute();
  for (const c of ['budgets', 'account_id']) await db.schema.alterTable('tokens').dropColumn(c).execute();
  await db.schema.dropTable('budget_spend').ifExists().execute();
  await db.schema.dropTable('price_groups').ifExists().execute();
  await db.schema.dropIndex('accounts_created').ifExists().execute();
  await db.schema.dropTable('accounts').ifExists().execute();
}
