import type { Kysely } from 'kysely';
import { dialectOf, type Dialect } from './dialect.ts';
import { migrateToLatest } from './migrate.ts';
import type { Database } from './schema.ts';
import { closeSqliteThreads, openSqlite } from './sqlite.ts';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  migrate?: boolean;
  pgSchema?: string;
  /** SQLite file stores: commit per-request rows from a writer thread (TOLLWAY_SQLITE_WRITER_THREAD). */
  writerThread?: boolean;
  /** SQLite file stores: WAL checkpoints on a thread (TOLLWAY_SQLITE_CHECKPOINT_THREAD; the gateway's default). */
  checkpointThread?: boolean;
}

export async function openStore(url: string, opts: OpenStoreOptions = {}): Promise<Store> {
  const dialect = dialectOf(url);
  // pg is loaded only for a PostgreSQL store (a SQLite deployment does not carry its memory).
  const db = dialect === 'postgres' ? await (await import('./postgres.ts')).openPostgres(url, opts.pgSchema ? { schema: opts.pgSchema } : {}) : openSqlite(url, { writerThread: opts.writerThread === true, checkpointThread: opts.checkpointThread === true });
  if (opts.migrate !== false) await migrateToLatest(db as unknown as Kysely<unknown>, dialect);
  return {
    db,
    dialect,
    close: async () => {
      await closeSqliteThreads(db);
      await db.destroy();
    },
  };
}

/** True when an error is a unique-constraint violation, in either dialect. */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return err?.code === '23505' || err?.code === 'SQLITE_CONSTRAINT_UNIQUE' || err?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    /UNIQUE constraint failed/.test(String(err?.message));
}
