import type { Kysely } from 'kysely';
import { dialectOf, type Dialect } from './dialect.ts';
import { migrateToLatest } from './migrate.ts';
import type { Database } from './schema.ts';
import type { SqliteBatchWriter } from './sqlite-batch-writer.ts';
import type { SqliteCheckpointer } from './sqlite-checkpointer.ts';
import type { SqliteReader } from './sqlite-reader.ts';
import { openSqlite } from './sqlite.ts';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** SQLite: the group-commit writer (prepared statements) for the meter and the request log; null on PostgreSQL. */
  batchWriter: SqliteBatchWriter | null;
  /** SQLite file store with TOLLWAY_SQLITE_CHECKPOINT_THREAD: the checkpoint thread; null otherwise. */
  checkpointer: SqliteCheckpointer | null;
  /**
   * Where heavy admin reads go (bills, ledger and request-log lists, reconciliation). A SQLite file store: a read-only
   * connection in a thread of its own (sqlite-reader.ts), so they never hold the event loop; otherwise `db` (the
   * PostgreSQL pool is asynchronous already).
   */
  reads: Kysely<Database>;
  /** SQLite file store: the read thread behind `reads`; null otherwise. */
  reader: SqliteReader | null;
  /** Where the store is, so another thread or process can open its own connection to it. */
  location: { url: string; pgSchema?: string };
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  migrate?: boolean;
  pgSchema?: string;
  /** PostgreSQL: the pool's size (default 10). */
  pgPoolMax?: number;
  /** SQLite file stores: commit per-request rows from a writer thread (TOLLWAY_SQLITE_WRITER_THREAD). */
  writerThread?: boolean;
  /** SQLite file stores: WAL checkpoints on a thread (TOLLWAY_SQLITE_CHECKPOINT_THREAD; the gateway's default). */
  checkpointThread?: boolean;
  /**
   * SQLite file stores: heavy admin reads on a read-only connection in a thread (TOLLWAY_SQLITE_READ_THREAD); default
   * true.
   */
  readThread?: boolean;
}

export async function openStore(url: string, opts: OpenStoreOptions = {}): Promise<Store> {
  const dialect = dialectOf(url);
  // pg is loaded only for a PostgreSQL store (a SQLite deployment does not carry its memory).
  const sqlite =
    dialect === 'sqlite'
      ? openSqlite(url, {
          writerThread: opts.writerThread === true,
          checkpointThread: opts.checkpointThread === true,
          readThread: opts.readThread !== false,
        })
      : null;
  const db = sqlite
    ? sqlite.db
    : await (await import('./postgres.ts')).openPostgres(url, {
        ...(opts.pgSchema ? { schema: opts.pgSchema } : {}),
        ...(opts.pgPoolMax ? { max: opts.pgPoolMax } : {}),
      });
  if (opts.migrate !== false) await migrateToLatest(db as unknown as Kysely<unknown>, dialect);
  return {
    db,
    dialect,
    batchWriter: sqlite?.batchWriter ?? null,
    checkpointer: sqlite?.checkpointer ?? null,
    reads: sqlite?.reads ?? db,
    reader: sqlite?.reader ?? null,
    location: { url, ...(opts.pgSchema ? { pgSchema: opts.pgSchema } : {}) },
    close: async () => {
      await sqlite?.closeThreads();
      await db.destroy();
    },
  };
}
