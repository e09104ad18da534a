// The ledger's SQLite id without AUTOINCREMENT: a fresh store has none, and an existing ledger is rebuilt with every
// row, id, index and constraint kept, the next id above every id issued.
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import * as m012 from '../../../src/store/migrations/012-ledger-rowid.ts';
import { MIGRATIONS } from '../../../src/store/migrate.ts';
import { openStore } from '../../../src/store/store.ts';
import { freshStore, testDialect, type FreshStore } from '../../support/store.ts';

let fresh: FreshStore | undefined;
afterEach(async () => {
  await fresh?.cleanup();
  fresh = undefined;
});

const raw = (s: { db: unknown }) => s.db as Kysely<unknown>;
const tableSql = async (db: Kysely<unknown>) =>
  (await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'ledger'`.execute(db))
    .rows[0]!.sql;
const indexes = async (db: Kysely<unknown>) =>
  (
    await sql<{
      name: string;
      sql: string | null;
    }>`select name, sql from sqlite_master where type = 'index' and tbl_name = 'ledger' order by name`.execute(db)
  ).rows;
const rows = async (db: Kysely<unknown>) =>
  (await sql<Record<string, unknown>>`select * from ledger order by id`.execute(db)).rows;
async function charge(db: Kysely<unknown>, key: string, amount: number): Promise<number> {
  const r =
    await sql`insert into ledger (idempotency_key, token_id, model, kind, quantities, unit_prices, amount, request_id, task_id, upstream_request_id, created_at)
    values (${key}, 'tok_a', 'qwx3.7-plus', 'tokens', '{"input_tokens":1}', '{"input":2}', ${amount}, ${key}, null, 'up_1', ${Date.now()}) on conflict (idempotency_key) do nothing`.execute(
      db,
    );
  return Number(r.numAffectedRows ?? 0);
}

describe.skipIf(testDialect() === 'postgres')('SQLite ledger ids (migration 012)', () => {
  it("a fresh store's ledger has no AUTOINCREMENT, so a charge writes no sqlite_sequence row", async () => {
    fresh = await freshStore();
    const db = raw(fresh.store);
    expect(await tableSql(db)).not.toMatch(/autoincrement/i);
    await charge(db, 'req_fresh', 5);
    const seq = await sql<{ name: string }>`select name from sqlite_sequence where name = 'ledger'`.execute(db);
    expect(seq.rows).toEqual([]);
  });

  it('an existing AUTOINCREMENT ledger is rebuilt on start: rows, ids, indexes and the unique key kept', async () => {
    fresh = await freshStore();
    let db = raw(fresh.store);
    const indexesBefore = await indexes(db);
    // The ledger as stores before this migration have it.
    await m012.down(db, 'sqlite');
    expect(await tableSql(db)).toMatch(/"id" integer primary key autoincrement/i);
    for (let i = 1; i <= 5; i++) await charge(db, `req_${i}`, i * 10);
    await sql`update ledger set task_id = 'task_3' where idempotency_key = 'req_3'`.execute(db);
    const before = await rows(db);
    // A store from before 012 has none of the later migrations either: undone, newest first, so they run again in
    // order.
    for (const [name, m] of Object.entries(MIGRATIONS)
      .filter(([n]) => n > '012-ledger-rowid')
      .reverse()) {
      await m.down!(db, 'sqlite');
      await sql`delete from kysely_migration where name = ${name}`.execute(db);
    }
    await sql`delete from kysely_migration where name = '012-ledger-rowid'`.execute(db);
    await fresh.store.close();

    const reopened = await openStore(fresh.url);
    fresh = { ...fresh, store: reopened };
    db = raw(reopened);
    expect(await tableSql(db)).not.toMatch(/autoincrement/i);
    expect(await rows(db)).toEqual(before);
    expect(await indexes(db)).toEqual(indexesBefore);
    expect(indexesBefore.map((i) => i.name)).toEqual(expect.arrayContaining(['ledger_task', 'ledger_token_time']));
    // The idempotency key is still unique: a repeated charge writes nothing.
    expect(await charge(db, 'req_2', 999)).toBe(0);
    expect(await charge(db, 'req_6', 60)).toBe(1);
    const after = await rows(db);
    expect(after).toHaveLength(6);
    expect(after[5]!.id).toBe(Number(before[4]!.id) + 1);
    // Run again (a rebuild whose record was lost): nothing changes.
    await m012.up(db, 'sqlite');
    expect(await rows(db)).toEqual(after);
  });

  it('a failure after the old table was dropped rolls the whole rebuild back', async () => {
    fresh = await freshStore();
    const db = raw(fresh.store);
    await m012.down(db, 'sqlite');
    await charge(db, 'req_1', 10);
    const ddl = await tableSql(db);
    // A view over the ledger passes the copy and the drop, then fails the rename (it names a table gone meanwhile).
    await sql`create view ledger_view as select id from ledger`.execute(db);
    await expect(m012.up(db, 'sqlite')).rejects.toThrow(/ledger/);
    expect(await tableSql(db)).toBe(ddl);
    expect((await rows(db)).map((r) => r.idempotency_key)).toEqual(['req_1']);
  });
});
