import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// Staff people with roles (core/staff/roles.ts) and their personal admin keys, stored only as the SHA-256 of the key
// (high-entropy, like client tokens). A console session names the person it signed in (and the key, when one was
// used: a single sign-on session has none); a session opened with the bootstrap admin key names no person. Audit
// lines name the person and the key behind each change; `audit_log_person` serves the audit list filtered by person.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('staff_people')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('email', 'varchar(320)', (c) => c.notNull().unique())
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('disabled_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('staff_keys')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('person_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('name', 'varchar(200)')
    .addColumn('prefix', 'varchar(32)', (c) => c.notNull())
    .addColumn('secret_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('staff_keys_person').on('staff_keys').columns(['person_id', 'created_at']).execute();
  await db.schema.alterTable('console_sessions').addColumn('person_id', 'varchar(64)').execute();
  await db.schema.alterTable('console_sessions').addColumn('key_id', 'varchar(64)').execute();
  await db.schema.alterTable('audit_log').addColumn('person_id', 'varchar(64)').execute();
  await db.schema.alterTable('audit_log').addColumn('key_id', 'varchar(64)').execute();
  await db.schema.createIndex('audit_log_person').on('audit_log').columns(['person_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_log_person').ifExists().execute();
  await db.schema.alterTable('audit_log').dropColumn('key_id').execute();
  await db.schema.alterTable('audit_log').dropColumn('person_id').execute();
  await db.schema.alterTable('console_sessions').dropColumn('key_id').execute();
  await db.schema.alterTable('console_sessions').dropColumn('person_id').execute();
  await db.schema.dropTable('staff_keys').ifExists().execute();
  await db.schema.dropTable('staff_people').ifExists().execute();
}
