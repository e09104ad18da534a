// store-independent: the statement cache is SQLite's own, tested on an in-memory better-sqlite3 database.
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type Generated } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cachingStatements, StatementCache } from '../../src/store/sqlite-statement-cache.ts';

describe('SQLite statement cache', () => {
  let raw: BetterSqlite3.Database;
  afterEach(() => raw?.open && raw.close());

  function open(): BetterSqlite3.Database {
    raw = new BetterSqlite3(':memory:');
    raw.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    raw.exec("INSERT INTO t (v) VALUES ('a'), ('b'), ('c')");
    return raw;
  }

  it('prepares each SQL text once, and drops the least recently used past its size', () => {
    const db = open();
    const prepare = vi.spyOn(db, 'prepare');
    const cache = new StatementCache(db, 2);
    const a = cache.prepare('SELECT 1');
    expect(cache.prepare('SELECT 1')).toBe(a);
    const b = cache.prepare('SELECT 2');
    expect(prepare).toHaveBeenCalledTimes(2);
    cache.prepare('SELECT 1'); // a is now the most recent
    cache.prepare('SELECT 3'); // evicts b
    expect(cache.prepare('SELECT 1')).toBe(a);
    expect(cache.prepare('SELECT 2')).not.toBe(b);
    expect(prepare).toHaveBeenCalledTimes(4);
  });

  it('a statement still being iterated is not handed out again: that use gets its own', () => {
    const db = open();
    const cache = new StatementCache(db);
    const q = 'SELECT v FROM t ORDER BY id';
    const kept = cache.prepare(q);
    const seen: string[] = [];
    for (const row of kept.iterate() as IterableIterator<{ v: string }>) {
      const inner = cache.prepare(q);
      expect(inner).not.toBe(kept);
      seen.push(`${row.v}${(inner.all() as unknown[]).length}`);
    }
    expect(seen).toEqual(['a3', 'b3', 'c3']);
    expect(cache.prepare(q)).toBe(kept);
  });

  it('through Kysely: repeated queries reuse their statement, writes and reads give the same answers, and a stream left early leaves its statement runnable', async () => {
    const db = open();
    const prepare = vi.spyOn(db, 'prepare');
    const k = new Kysely<{ t: { id: Generated<number>; v: string } }>({
      dialect: new SqliteDialect({ database: cachingStatements(db) }),
    });
    for (const v of ['d', 'e', 'f']) await k.insertInto('t').values({ v }).execute();
    const updated = await sql<{ id: number }>`UPDATE t SET v = upper(v) WHERE id <= ${2} RETURNING id`.execute(k);
    expect(updated.rows.map((r) => r.id)).toEqual([1, 2]);
    for (let i = 0; i < 3; i++)
      expect(await k.selectFrom('t').select('v').where('id', '>', 4).orderBy('id').execute()).toEqual([
        { v: 'e' },
        { v: 'f' },
      ]);
    expect(prepare).toHaveBeenCalledTimes(3); // the insert, the update, the select
    // A stream left early (break) must leave its statement runnable for the next query of the same text.
    for await (const row of k.selectFrom('t').select('v').orderBy('id').stream()) {
      expect(row.v).toBe('A');
      break;
    }
    const streamed: string[] = [];
    for await (const row of k.selectFrom('t').select('v').orderBy('id').stream()) streamed.push(row.v);
    expect(streamed).toEqual(['A', 'B', 'c', 'd', 'e', 'f']);
    expect((await k.selectFrom('t').select('v').orderBy('id').execute()).map((r) => r.v)).toEqual(streamed);
    await k.destroy();
    expect(db.open).toBe(false);
  });
});
