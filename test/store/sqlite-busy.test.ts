// The request thread's SQLite connection waits for another connection's write lock on a timer, not by sleeping the
// thread: while the lock is held, its writes (a statement, a transaction, a group commit) wait and the event loop goes
// on; once the lock is let go they complete, each once. A lock held past the wait is the caller's SQLITE_BUSY.
import { withLedger } from '../support/batch-writer.ts';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isSqliteBusy, whileBusy } from '../../src/store/sqlite-busy.ts';
import { ledgerTuple } from '../support/store-rows.ts';
import { sqliteFileStore } from '../support/store.ts';

let cleanup: (() => Promise<void>) | null = null;
afterEach(async () => {
  await cleanup?.();
  cleanup = null;
});

/** Turns of the event loop counted by a 1 ms interval while `p` is pending. */
async function turnsWhile<T>(p: Promise<T>, holdMs: number, release: () => void): Promise<{ value: T; turns: number }> {
  let turns = 0;
  const tick = setInterval(() => turns++, 1);
  await new Promise((r) => setTimeout(r, holdMs));
  const before = turns;
  release();
  const value = await p;
  clearInterval(tick);
  return { value, turns: before };
}

describe('SQLite: a busy database is waited for on a timer', () => {
  it('a statement, a transaction and a group commit wait for the lock while the event loop runs, then complete once', async () => {
    const s = await sqliteFileStore();
    cleanup = s.cleanup;
    const db = s.store.db;
    await db
      .insertInto('tokens')
      .values({ id: 'tok_b', name: 'b', secret_hash: 'h-b', prefix: 'sk-b', spent: 0, held: 0, created_at: 1 })
      .execute();
    const other = new BetterSqlite3(s.file);
    other.pragma('busy_timeout = 0');
    other.exec('BEGIN IMMEDIATE');
    let pending = true;
    const writes = Promise.all([
      db.updateTable('tokens').set({ name: 'renamed' }).where('id', '=', 'tok_b').execute(),
      db.transaction().execute(async (trx) => {
        await trx.updateTable('tokens').set({ held: 7 }).where('id', '=', 'tok_b').execute();
      }),
      withLedger(s.store.batchWriter!).ledger([ledgerTuple('busy-1', 'tok_b', 5)]),
    ]).finally(() => (pending = false));
    const { turns } = await turnsWhile(writes, 150, () => {
      expect(pending).toBe(true);
      other.exec('COMMIT');
    });
    // The loop ran all along (a thread asleep in SQLite's busy handler would have run no timer).
    expect(turns).toBeGreaterThan(20);
    const row = await db
      .selectFrom('tokens')
      .select(['name', 'held', 'spent'])
      .where('id', '=', 'tok_b')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ name: 'renamed', held: 7, spent: 5 });
    expect((await db.selectFrom('ledger').select('id').where('idempotency_key', '=', 'busy-1').execute()).length).toBe(
      1,
    );
    other.close();
  });

  it('a lock held past the wait is the caller’s SQLITE_BUSY; anything else is never tried again', async () => {
    let calls = 0;
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    await expect(
      whileBusy(() => {
        calls++;
        throw busy;
      }, 30),
    ).rejects.toBe(busy);
    expect(calls).toBeGreaterThan(2);
    expect(isSqliteBusy(busy)).toBe(true);
    calls = 0;
    const other = Object.assign(new Error('constraint'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
    await expect(
      whileBusy(() => {
        calls++;
        throw other;
      }),
    ).rejects.toBe(other);
    expect(calls).toBe(1);
  });
});
