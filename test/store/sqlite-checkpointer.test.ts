// The SQLite checkpoint thread: with it, the event loop's connection never checkpoints (automatic checkpoints
// off), the thread copies the WAL into the database between group commits so the WAL starts over and stays
// small under sustained writes, and a thread that dies gives the automatic checkpoints back without holding
// any commit.
import { withLedger } from '../support/batch-writer.ts';
import { closeSync, copyFileSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { LedgerTuple, LogTuple } from '../../src/store/sqlite-row-writes.ts';
import type { Store } from '../../src/store/store.ts';
import { sqliteFileStore, testDialect } from '../support/store.ts';

const ledgerRow = (key: string): LedgerTuple => [
  key,
  'tok_t',
  'qwx3.7-plus',
  'tokens',
  { input_tokens: 3, output_tokens: 5 },
  { input_per_1k: 800 },
  2,
  key,
  null,
  'chatcmpl-0123456789abcdef',
  Date.now(),
];
const logRow = (id: string): LogTuple => [
  id,
  'tok_t',
  'qwx3.7-plus',
  '/v1/chat/completions',
  'POST',
  200,
  3,
  { input_tokens: 3, output_tokens: 5 },
  2,
  'chatcmpl-0123456789abcdef',
  null,
  Date.now(),
  null,
  null,
  null,
];
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(testDialect() !== 'sqlite')('SQLite checkpoint thread', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function fileStore(checkpointThread: boolean): Promise<{ store: Store; file: string }> {
    const { store, file, cleanup } = await sqliteFileStore({ checkpointThread });
    cleanups.push(cleanup);
    await store.db
      .insertInto('tokens')
      .values({ id: 'tok_t', name: 't', secret_hash: 'h-t', prefix: 'sk-t', spent: 0, held: 0, created_at: 1 })
      .execute();
    return { store, file };
  }
  const autoCheckpoint = async (s: Store) =>
    Number(Object.values((await sql<Record<string, number>>`PRAGMA wal_autocheckpoint`.execute(s.db)).rows[0]!)[0]);
  async function until(what: () => boolean, ms = 5000): Promise<void> {
    const end = Date.now() + ms;
    while (!what()) {
      if (Date.now() > end) throw new Error('timed out');
      await wait(10);
    }
  }
  /** Rows of `table` in the database file alone (a copy without its WAL: what checkpoints put there). */
  function rowsInDatabaseFile(file: string, table: string): number {
    const copy = `${file}.copy`;
    copyFileSync(file, copy);
    const db = new BetterSqlite3(copy, { readonly: true });
    try {
      return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    } finally {
      db.close();
      rmSync(copy, { force: true });
    }
  }

  it('takes the checkpoints off the event loop: automatic checkpoints off, rows copied into the database by the thread', async () => {
    const { store, file } = await fileStore(true);
    const cp = store.checkpointer!;
    await until(() => cp.active);
    expect(await autoCheckpoint(store)).toBe(0);
    const w = withLedger(store.batchWriter!);
    // A few rows: far below SQLite's automatic threshold (1,000 frames), so only the thread puts them in the file.
    await Promise.all([w.ledger([ledgerRow('k1'), ledgerRow('k2')]), w.requestLog([logRow('r1')])]);
    await wait(250);
    const before = cp.done;
    await w.requestLog([logRow('r2')]); // a commit after the interval asks for a checkpoint
    await until(() => cp.done > before);
    expect(cp.last).not.toBeNull();
    expect(cp.last!.copied).toBe(cp.last!.frames);
    expect(rowsInDatabaseFile(file, 'ledger')).toBe(2);
    expect(rowsInDatabaseFile(file, 'request_log')).toBe(2);
  });

  /** The WAL header's checkpoint sequence number and salts: they change each time the WAL starts over. */
  function walGeneration(file: string): string {
    const fd = openSync(`${file}-wal`, 'r');
    try {
      const b = Buffer.alloc(12);
      readSync(fd, b, 0, 12, 12);
      return b.toString('hex');
    } finally {
      closeSync(fd);
    }
  }

  it('starts the WAL over on its own thread after a full checkpoint, so no group commit restarts it (and syncs its header)', async () => {
    const { store, file } = await fileStore(true);
    const cp = store.checkpointer!;
    await until(() => cp.active);
    const w = withLedger(store.batchWriter!);
    await Promise.all([w.ledger([ledgerRow('k1')]), w.requestLog([logRow('r1')])]);
    for (let round = 2; round <= 3; round++) {
      await wait(250);
      const before = cp.done;
      const generation = walGeneration(file);
      await w.requestLog([logRow(`r${round}`)]); // a commit after the interval asks for a checkpoint
      await until(() => cp.done > before);
      expect(cp.last!.copied).toBe(cp.last!.frames);
      // The thread restarted the WAL: a new generation before any other commit…
      const restarted = walGeneration(file);
      expect(restarted).not.toBe(generation);
      // …and the next group commit appends to it instead of starting it over.
      await Promise.all([w.ledger([ledgerRow(`k${round}`)]), w.requestLog([logRow(`s${round}`)])]);
      expect(walGeneration(file)).toBe(restarted);
    }
    expect(
      Number(
        (
          await store.db
            .selectFrom('ledger')
            .select((eb) => eb.fn.countAll<number>().as('c'))
            .executeTakeFirstOrThrow()
        ).c,
      ),
    ).toBe(3);
  });

  it('keeps the WAL small under sustained group commits (each checkpoint completes, the WAL starts over)', async () => {
    const { store, file } = await fileStore(true);
    const cp = store.checkpointer!;
    await until(() => cp.active);
    const w = withLedger(store.batchWriter!);
    let n = 0;
    const end = Date.now() + 2500;
    // ~100 commits of 200 rows each: ~50 MB of WAL frames in all.
    while (Date.now() < end) {
      const l: LedgerTuple[] = [];
      const g: LogTuple[] = [];
      for (let i = 0; i < 200; i++, n++) {
        l.push(ledgerRow(`k${n}`));
        g.push(logRow(`r${n}`));
      }
      await Promise.all([w.ledger(l), w.requestLog(g)]);
      await wait(5);
    }
    expect(cp.done).toBeGreaterThan(3);
    expect(statSync(`${file}-wal`).size).toBeLessThan(16 * 1024 * 1024);
    expect(
      Number(
        (
          await store.db
            .selectFrom('ledger')
            .select((eb) => eb.fn.countAll<number>().as('c'))
            .executeTakeFirstOrThrow()
        ).c,
      ),
    ).toBe(n);
  });

  it('a thread that dies gives the checkpoints back to the event loop and holds no commit', async () => {
    const { store } = await fileStore(true);
    const cp = store.checkpointer!;
    await until(() => cp.active);
    await cp.kill();
    await until(() => !cp.active);
    expect(await autoCheckpoint(store)).toBe(1000);
    const w = withLedger(store.batchWriter!);
    await wait(250);
    await Promise.all([w.ledger([ledgerRow('after')]), w.requestLog([logRow('after')])]);
    await w.requestLog([logRow('after-2')]);
    expect(
      Number(
        (
          await store.db
            .selectFrom('request_log')
            .select((eb) => eb.fn.countAll<number>().as('c'))
            .executeTakeFirstOrThrow()
        ).c,
      ),
    ).toBe(2);
  });

  it('without the thread (the default of openStore), SQLite checkpoints by itself', async () => {
    const { store } = await fileStore(false);
    expect(store.checkpointer).toBeNull();
    expect(await autoCheckpoint(store)).toBe(1000);
  });
});
