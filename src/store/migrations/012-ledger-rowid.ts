import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

// SQLite: the ledger's id becomes a plain INTEGER PRIMARY KEY (the rowid) instead of AUTOINCREMENT. AUTOINCREMENT
// reads and rewrites the table's row in sqlite_sequence in every insert statement: two more B-tree operations per
// charge on the request path (docs/performance.md). Its one guarantee beyond the rowid's — an id is not reused after
// the row holding the highest id is deleted — has nothing to guard: the ledger is append-only (retention never
// sweeps it), so the next id is always above every id issued. PostgreSQL keeps its bigserial.
// The table is rebuilt in one transaction from its own DDL (with the columns later migrations added), the rows copied
// with their ids, the indexes recreated from theirs. A database already without the keyword is left alone, so a
// rebuild interrupted before the migration was recorded is simply not repeated.

const TABLE_NAME = /^CREATE TABLE\s+(?:"ledger"|`ledger`|\[ledger\]|ledger)(?=\s*\()/i;

async function rebuild(
  db: Kysely<unknown>,
  needsChange: (ddl: string) => boolean,
  change: (ddl: string) => string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const table = await sql<{
      sql: string;
    }>`select sql from sqlite_master where type = 'table' and name = 'ledger'`.execute(trx);
    const ddl = table.rows[0]?.sql;
    if (ddl === undefined || !needsChange(ddl)) return;
    // SQLite stores the DDL as `CREATE TABLE <name as written> (`; any other shape is left alone (the keyword only
    // costs time).
    if (!TABLE_NAME.test(ddl)) return;
    // Explicit indexes only: the unique constraint's index (sql is null) comes back with the table's DDL.
    const indexes = await sql<{
      sql: string;
    }>`select sql from sqlite_master where type = 'index' and tbl_name = 'ledger' and sql is not null`.execute(trx);
    await sql.raw(change(ddl).replace(TABLE_NAME, 'CREATE TABLE "ledger_rebuilt"')).execute(trx);
    await sql`insert into ledger_rebuilt select * from ledger`.execute(trx);
    await sql`drop table ledger`.execute(trx);
    await sql`alter table ledger_rebuilt rename to ledger`.execute(trx);
    for (const i of indexes.rows) await sql.raw(i.sql).execute(trx);
  });
}

const AUTOINCREMENT = /\s+autoincrement\b/i;
const ID_KEY = /("id"|`id`|\[id\]|\bid)(\s+integer\s+primary\s+key)/i;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') return;
  await rebuild(
    db,
    (ddl) => AUTOINCREMENT.test(ddl),
    (ddl) => ddl.replace(AUTOINCREMENT, ''),
  );
}

export async function down(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') return;
  await rebuild(
    db,
    (ddl) => !AUTOINCREMENT.test(ddl),
    (ddl) => ddl.replace(ID_KEY, '$1$2 autoincrement'),
  );
}
