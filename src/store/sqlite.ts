import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type QueryCompiler,
  type SqliteDialectConfig,
} from 'kysely';
import type { Database } from './schema.ts';
import { SqliteBatchWriter } from './sqlite-batch-writer.ts';
import { SqliteCheckpointer } from './sqlite-checkpointer.ts';
import { SqliteReader, SqliteReaderDialect } from './sqlite-reader.ts';
import { whileBusy } from './sqlite-busy.ts';
import { cachingStatements } from './sqlite-statement-cache.ts';
import { LiteralLimitCompiler } from './sqlite-literal-limits.ts';

/**
 * Transactions take the write lock when they begin (BEGIN IMMEDIATE). Another process may write the same file
 * (the CLI beside a running gateway, a second instance), and a deferred transaction that read first and then
 * writes would fail with SQLITE_BUSY_SNAPSHOT if that writer committed in between; an immediate one waits for
 * the lock instead (sqlite-busy.ts).
 */
class ImmediateSqliteDriver extends SqliteDriver {
  private busyAware: DatabaseConnection | null = null;

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  /** The one connection, its statements tried again while another connection holds the write lock (sqlite-busy.ts). */
  override async acquireConnection(): Promise<DatabaseConnection> {
    const c = await super.acquireConnection();
    this.busyAware ??= {
      executeQuery: (q) => whileBusy(() => c.executeQuery(q)),
      streamQuery: (q, chunkSize) => c.streamQuery(q, chunkSize),
    };
    return this.busyAware;
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly cfg: SqliteDialectConfig) {
    super(cfg);
  }

  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.cfg);
  }

  override createQueryCompiler(): QueryCompiler {
    return new LiteralLimitCompiler();
  }
}

export interface SqliteOptions {
  /** Commit the per-request rows from a writer thread (TOLLWAY_SQLITE_WRITER_THREAD). */
  writerThread?: boolean;
  /** Run WAL checkpoints on a thread instead of inside commits on the event loop (TOLLWAY_SQLITE_CHECKPOINT_THREAD). */
  checkpointThread?: boolean;
  /** Run heavy admin reads on a read-only connection in a thread (TOLLWAY_SQLITE_READ_THREAD). */
  readThread?: boolean;
}

/** An opened SQLite store: the Kysely instance, its group-commit writer and its checkpoint thread (if any). */
export interface SqliteHandle {
  db: Kysely<Database>;
  batchWriter: SqliteBatchWriter;
  checkpointer: SqliteCheckpointer | null;
  /** Where heavy admin reads go: the read thread's dialect for a file store (readThread), else `db`. */
  reads: Kysely<Database>;
  /** The read thread, when there is one. */
  reader: SqliteReader | null;
  /** Stop the threads; call before destroying the Kysely instance. */
  closeThreads(): Promise<void>;
}

/**
 * Open a SQLite file (WAL). Opening waits for the lock (busy_timeout); from then on a busy database is waited for on
 * a timer, not by sleeping the thread (sqlite-busy.ts).
 */
export function openSqlite(url: string, opts: SqliteOptions = {}): SqliteHandle {
  const path = url.replace(/^sqlite:(\/\/)?/, '');
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new BetterSqlite3(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 0');
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: cachingStatements(sqlite) }) });
  // A writer thread needs a file (another connection cannot see an in-memory database).
  let checkpointer: SqliteCheckpointer | null = null;
  if (opts.checkpointThread === true && path !== ':memory:') {
    checkpointer = new SqliteCheckpointer(sqlite, path);
    checkpointer.start();
  }
  const batchWriter = new SqliteBatchWriter(
    db,
    sqlite,
    opts.writerThread === true && path !== ':memory:' ? path : null,
    checkpointer,
  );
  // Another connection cannot see an in-memory database: its reads stay on `db`.
  const reader = opts.readThread === true && path !== ':memory:' ? new SqliteReader(path) : null;
  const reads = reader ? new Kysely<Database>({ dialect: new SqliteReaderDialect(reader) }) : db;
  return {
    db,
    batchWriter,
    checkpointer,
    reads,
    reader,
    closeThreads: async () => {
      if (reads !== db) await reads.destroy();
      await batchWriter.close();
      await checkpointer?.close();
    },
  };
}
