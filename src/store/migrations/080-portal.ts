import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// The customer portal (core/portal/): members of a customer account, their member keys (stored only as the SHA-256
// of the key, shown once; rotatable; with an expiry) and their portal sessions (separate from the console's: the
// cookie's secret stored only as its SHA-256). A member's e-mail is unique within its account, so a sign-in by an
// identity provider can find the member by e-mail.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('account_members')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('account_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('email', 'varchar(320)', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('account_members_email', ['account_id', 'email'])
    .execute();
  await db.schema.createIndex('account_members_by_email').on('account_members').columns(['email']).execute();
  await db.schema
    .createTable('member_keys')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('member_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('prefix', 'varchar(32)', (c) => c.notNull())
    .addColumn('secret_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('member_keys_member').on('member_keys').columns(['member_id', 'created_at']).execute();
  await db.schema
    .createTable('portal_sessions')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('secret_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('csrf', 'varchar(64)', (c) => c.notNull())
    .addColumn('member_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('key_id', 'varchar(64)')
    .addColumn('client', 'varchar(100)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('portal_sessions').ifExists().execute();
  await db.schema.dropTable('member_keys').ifExists().execute();
  await db.schema.dropTable('account_members').ifExists().execute();
}
