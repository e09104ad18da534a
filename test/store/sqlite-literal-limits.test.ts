// SQLite compiles a statement again whenever a parameter its LIMIT or OFFSET reads is bound anew, which
// better-sqlite3 does on every run: the store writes counts into the SQL instead (sqlite-literal-limits.ts).
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { LiteralLimitCompiler } from '../../src/store/sqlite-literal-limits.ts';
import { SqliteReaderDialect, type SqliteReader } from '../../src/store/sqlite-reader.ts';
import { testDialect, useStore } from '../support/store.ts';

describe.skipIf(testDialect() !== 'sqlite')('SQLite LIMIT and OFFSET', () => {
  const fresh = useStore();
  beforeAll(async () => {
    const rows = [1, 2, 3, 4, 5].map((i) => ({
      id: `tok_l${i}`,
      name: `l${i}`,
      secret_hash: `h-l${i}`,
      prefix: 'sk-l',
      created_at: i,
    }));
    await fresh.store.db.insertInto('tokens').values(rows).execute();
  });
  const page = (limit: number, offset: number) =>
    fresh.store.db
      .selectFrom('tokens')
      .select('id')
      .where('prefix', '=', 'sk-l')
      .orderBy('id')
      .limit(limit)
      .offset(offset);

  it('writes a count into the SQL (no parameter), and the page is the same', async () => {
    const q = page(2, 1).compile();
    expect(q.sql).toMatch(/limit 2 offset 1$/);
    expect(q.parameters).toEqual(['sk-l']);
    expect((await page(2, 1).execute()).map((r) => r.id)).toEqual(['tok_l2', 'tok_l3']);
    // Another count is another statement text: each distinct page size is prepared once.
    expect(page(3, 0).compile().sql).toMatch(/limit 3 offset 0$/);
    expect((await page(3, 0).execute()).map((r) => r.id)).toEqual(['tok_l1', 'tok_l2', 'tok_l3']);
  });

  it('binds what is not a plain count, as before', async () => {
    const q = fresh.store.db
      .selectFrom('tokens')
      .select('id')
      .where('prefix', '=', 'sk-l')
      .orderBy('id')
      .limit(sql<number>`${1} + ${1}`);
    expect(q.compile().sql).toMatch(/limit \? \+ \?$/);
    expect((await q.execute()).map((r) => r.id)).toEqual(['tok_l1', 'tok_l2']);
    const fractional = page(2, 1).limit(1.5).compile();
    expect(fractional.sql).toMatch(/limit \? offset 1$/);
  });

  it('the read thread compiles the same way', () => {
    expect(new SqliteReaderDialect(null as unknown as SqliteReader).createQueryCompiler()).toBeInstanceOf(
      LiteralLimitCompiler,
    );
  });
});
