import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect.ts';

/** The tables each instance keeps in memory, by the name their version row has. */
export const CACHED_TABLES = ['channels', 'catalogue_overrides', 'price_groups'] as const;

// A version per table an instance caches, moved by the database itself (a trigger on every insert, update and delete,
// whoever writes): the periodic refresh reads these few numbers and reloads only a table whose version moved.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('cache_versions')
    .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  for (const t of CACHED_TABLES) await sql`INSERT INTO cache_versions (name, version) VALUES (${t}, 0)`.execute(db);
  if (dialect === 'postgres') {
    await sql`CREATE FUNCTION bump_cache_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN UPDATE cache_versions SET version = version + 1 WHERE name = TG_ARGV[0]; RETURN NULL; END $$`.execute(db);
    for (const t of CACHED_TABLES)
      await sql`CREATE TRIGGER ${sql.raw(`${t}_version`)} AFTER INSERT OR UPDATE OR DELETE ON ${sql.table(t)}
        FOR EACH STATEMENT EXECUTE PROCEDURE bump_cache_version(${sql.lit(t)})`.execute(db);
    return;
  }
  for (const t of CACHED_TABLES)
    for (const op of ['INSERT', 'UPDATE', 'DELETE'])
      await sql`CREATE TRIGGER ${sql.raw(`${t}_version_${op.toLowerCase()}`)} AFTER ${sql.raw(op)} ON ${sql.table(t)}
        BEGIN UPDATE cache_versions SET version = version + 1 WHERE name = ${sql.lit(t)}; END`.execute(db);
}

export async function down(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    for (const t of CACHED_TABLES)
      await sql`DROP TRIGGER IF EXISTS ${sql.raw(`${t}_version`)} ON ${sql.table(t)}`.execute(db);
    await sql`DROP FUNCTION IF EXISTS bump_cache_version()`.execute(db);
  } else {
    for (const t of CACHED_TABLES)
      for (const op of ['insert', 'update', 'delete'])
        await sql`DROP TRIGGER IF EXISTS ${sql.raw(`${t}_version_${op}`)}`.execute(db);
  }
  await db.schema.dropTable('cache_versions').ifExists().execute();
}
