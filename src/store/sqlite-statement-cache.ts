// Kysely's SQLite driver prepares every query it runs. For SQLite, parsing and code generation cost more than
// running most of the gateway's statements (an UPDATE … RETURNING compiles a trigger program each time), so the
// connections keep their prepared statements, by SQL text, in a bounded least-recently-used map.
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Distinct SQL texts kept: the gateway's queries, plus IN lists of several lengths. */
export const STATEMENT_CACHE_SIZE = 256;

/** Prepared statements of one connection by SQL text, the least recently used dropped past `size`. */
export class StatementCache {
  private readonly kept = new Map<string, BetterSqlite3.Statement>();

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly size = STATEMENT_CACHE_SIZE,
  ) {}

  prepare(sql: string): BetterSqlite3.Statement {
    const kept = this.kept.get(sql);
    // A statement still being iterated (a streamed query) cannot run again until it is done: that use gets its own.
    if (kept !== undefined && !kept.busy) {
      this.kept.delete(sql);
      this.kept.set(sql, kept);
      return kept;
    }
    const stmt = this.db.prepare(sql);
    if (kept === undefined) {
      this.kept.set(sql, stmt);
      if (this.kept.size > this.size) this.kept.delete(this.kept.keys().next().value!);
    }
    return stmt;
  }
}

/** The database Kysely is given: each distinct SQL text is prepared once while it stays among the most recent. */
export function cachingStatements(db: BetterSqlite3.Database, size = STATEMENT_CACHE_SIZE): SqliteDatabase {
  const statements = new StatementCache(db, size);
  return { close: () => db.close(), prepare: (sql) => statements.prepare(sql) };
}
