import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from './schema.ts';

// The better-sqlite3 handle behind each Kysely instance we opened: hot-path group commits (request log,
// ledger) run prepared statements on it directly — see withSqliteHandle.
const handles = new WeakMap<object, BetterSqlite3.Database>();

/** Open a SQLite file (WAL, a busy timeout so concurrent writers wait instead of failing). */
export function openSqlite(url: string): Kysely<Database> {
  const path = url.replace(/^sqlite:(\/\/)?/, '');
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new BetterSqlite3(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  handles.set(db, sqlite);
  return db;
}

/**
 * Run `fn` synchronously on the raw SQLite handle behind `db` (null when `db` is not a SQLite store we opened).
 * It runs while holding Kysely's single connection, so it can never interleave with an open Kysely
 * transaction (whose ROLLBACK would otherwise take our rows with it); being synchronous, nothing else runs
 * in between either. Used for group commits where Kysely's per-query compile cost dominates.
 */
export function withSqliteHandle<T>(db: Kysely<Database>, fn: (raw: BetterSqlite3.Database) => T): Promise<T> | null {
  const raw = handles.get(db);
  if (!raw) return null;
  return db.connection().execute(async () => fn(raw));
}
