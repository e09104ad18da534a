// The SQLite writer thread: a file store commits its per-request rows from a second connection on another
// thread; what the event loop reads after a batch resolves is there, a thread that dies mid-batch loses nothing
// and counts nothing twice (the batch is retried in-thread, keyed inserts skip what the thread did commit), and
// closing waits for the batches already handed over.
import { withLedger } from '../support/batch-writer.ts';
import type { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { SqliteBatchWriter } from '../../src/store/sqlite-batch-writer.ts';
import type { LedgerTuple, LogTuple } from '../../src/store/sqlite-row-writes.ts';
import { isRowRefusal } from '../../src/store/store-errors.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { ledgerTuple } from '../support/store-rows.ts';
import { freshStore, sqliteFileStore, testDialect } from '../support/store.ts';

const ledgerRow = (key: string, amount: number): LedgerTuple => ledgerTuple(key, 'tok_t', amount);
const logRow = (id: string): LogTuple => [
  id,
  'tok_t',
  'qwx3.7-plus',
  '/v1/chat/completions',
  'POST',
  200,
  3,
  { input_tokens: 3 },
  7,
  null,
  null,
  1,
  'ch_1',
  null,
  2,
];
/** The thread behind a writer (internal: only this test reaches for it). */
const threadOf = (w: SqliteBatchWriter) => (w as unknown as { thread: Worker | null }).thread;

describe.skipIf(testDialect() !== 'sqlite')('SQLite writer thread', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  /** A file store with the writer thread on (TOLLWAY_SQLITE_WRITER_THREAD). */
  async function threadedStore(): Promise<{ store: Store; url: string; close(): Promise<void> }> {
    const { store, url, close, cleanup } = await sqliteFileStore({ writerThread: true });
    cleanups.push(cleanup);
    await store.db
      .insertInto('tokens')
      .values({ id: 'tok_t', name: 't', secret_hash: 'h-t', prefix: 'sk-t', spent: 0, held: 0, created_at: 1 })
      .execute();
    return { store, url, close };
  }

  async function store(): Promise<{ store: Store; w: SqliteBatchWriter; file: string }> {
    const t = await threadedStore();
    return { store: t.store, w: withLedger(t.store.batchWriter!), file: t.url.replace(/^sqlite:/, '') };
  }
  const count = async (s: Store, table: 'ledger' | 'request_log') =>
    Number(
      (
        await s.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const spent = async (s: Store) =>
    Number((await s.db.selectFrom('tokens').select('spent').where('id', '=', 'tok_t').executeTakeFirstOrThrow()).spent);

  it('commits on the thread, and the event loop reads the rows as soon as the batch resolves', async () => {
    const { store: s, w } = await store();
    expect(w.threaded).toBe(true);
    await Promise.all([w.ledger([ledgerRow('a1', 5), ledgerRow('a2', 6)]), w.requestLog([logRow('r1')])]);
    expect(threadOf(w)).not.toBeNull(); // the batch went to a thread, not in-thread
    expect(await count(s, 'ledger')).toBe(2);
    expect(await count(s, 'request_log')).toBe(1);
    expect(await spent(s)).toBe(11);
  });

  it('a row the store refuses reaches the event loop as the same kind of error, code kept: a refusal, not a fault', async () => {
    const { w } = await store();
    const bad = [...logRow('r_bad')] as unknown as LogTuple;
    (bad as unknown[])[3] = null; // endpoint is NOT NULL
    const err = await w.requestLog([bad]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(threadOf(w)).not.toBeNull();
    expect((err as { code?: string }).code).toBe('SQLITE_CONSTRAINT_NOTNULL');
    expect(isRowRefusal(err)).toBe(true);
    const unbindable = [...logRow('r_obj')] as unknown as LogTuple;
    // A number SQLite cannot hold (an integer past 64 bits): the driver's RangeError.
    (unbindable as unknown[])[5] = 2n ** 70n;
    const rangeErr = await w.requestLog([unbindable]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(rangeErr).toBeInstanceOf(RangeError);
    expect(isRowRefusal(rangeErr)).toBe(true);
  });

  it('a thread that dies after committing but before its answer was read: the retry goes in-thread and counts nothing twice', async () => {
    const { store: s, w, file } = await store();
    await w.ledger([ledgerRow('warm', 1)]); // the thread is up
    const rows = Array.from({ length: 50 }, (_, i) => ledgerRow(`d${i}`, 2));
    const out = w.ledger(rows);
    // Block the event loop until the thread has committed the batch (its answer cannot be read meanwhile)...
    await new Promise((r) => setImmediate(r));
    const probe = new BetterSqlite3(file, { readonly: true });
    const deadline = Date.now() + 5000;
    while ((probe.prepare('SELECT count(*) AS n FROM ledger').get() as { n: number }).n < 51 && Date.now() < deadline);
    probe.close();
    // ...then kill it.
    await threadOf(w)!.terminate();
    await out.then(
      () => undefined,
      () => undefined,
    );
    expect(w.threaded).toBe(false);
    // What the group commit does with a refused batch: hand the same rows over again — now in-thread.
    await w.ledger(rows);
    expect(threadOf(w)).toBeNull();
    expect(await count(s, 'ledger')).toBe(51);
    expect(await spent(s)).toBe(1 + 50 * 2);
  });

  it('close() waits for the batches already handed over, then stops the thread', async () => {
    const t = await threadedStore();
    const w = withLedger(t.store.batchWriter!);
    const p = w.ledger(Array.from({ length: 200 }, (_, i) => ledgerRow(`c${i}`, 1)));
    await new Promise((r) => setImmediate(r)); // the batch is handed over on the next turn
    const thread = threadOf(w)!;
    expect(thread).not.toBeNull();
    let exited = false;
    thread.once('exit', () => (exited = true));
    await t.close();
    await p;
    expect(exited).toBe(true);
    // Reopen the file: every row of the batch is there.
    const again = await openStore(t.url);
    try {
      expect(await count(again, 'ledger')).toBe(200);
      expect(await spent(again)).toBe(200);
    } finally {
      await again.close();
    }
  });

  it('off by default, and never for an in-memory database (another connection could not see it): batches commit in-thread', async () => {
    const f = await freshStore();
    cleanups.push(f.cleanup);
    expect(f.store.batchWriter!.threaded).toBe(false);
    const s = await openStore('sqlite::memory:', { writerThread: true });
    cleanups.push(() => s.close());
    await s.db
      .insertInto('tokens')
      .values({ id: 'tok_t', name: 't', secret_hash: 'h-t', prefix: 'sk-t', spent: 0, held: 0, created_at: 1 })
      .execute();
    const w = withLedger(s.batchWriter!);
    expect(w.threaded).toBe(false);
    await w.ledger([ledgerRow('m1', 4)]);
    expect(threadOf(w)).toBeNull();
    expect(await spent(s)).toBe(4);
  });
});
