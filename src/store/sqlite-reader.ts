// Heavy admin reads of a SQLite file store, off the event loop: a Kysely dialect whose one connection hands each
// query to the read thread (sqlite-read-thread.ts: a read-only connection of its own) and awaits its rows. better-
// sqlite3 is synchronous, so on the gateway's own connection a bill over millions of ledger rows would hold the event
// loop — and every request in flight — for its whole run; here the event loop only receives the answer.
// The thread starts with the first query and is restarted by the next query if it died (the queries in flight fail).
import { Worker } from 'node:worker_threads';
import {
  SqliteAdapter,
  SqliteIntrospector,
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';
import type { ReadReply, ReadRequest } from './sqlite-read-thread.ts';
import { storeThreadEntry } from './thread-entry.ts';
import { LiteralLimitCompiler } from './sqlite-literal-limits.ts';

// The thread holds one answer at a time; a page or a bill's day totals are small, a reconciliation's period larger.
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 512 };

interface Waiting {
  resolve: (rows: unknown[]) => void;
  reject: (e: unknown) => void;
}

export class SqliteReader {
  private thread: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private closed = false;

  constructor(private readonly file: string) {}

  /** Queries sent to the thread and not yet answered. */
  get inFlight(): number {
    return this.waiting.size;
  }

  query(sql: string, params: readonly unknown[]): Promise<unknown[]> {
    if (this.closed) return Promise.reject(new Error('the SQLite read thread is closed'));
    return new Promise((resolve, reject) => {
      const t = this.start();
      const id = this.nextId++;
      this.waiting.set(id, { resolve, reject });
      // Referenced while a query is out, so the process waits for the answer; idle, it never holds the process open.
      t.ref();
      const req: ReadRequest = { id, sql, params: [...params] };
      t.postMessage(req);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const t = this.thread;
    this.thread = null;
    if (!t) return;
    await new Promise<void>((resolve) => {
      t.once('exit', () => resolve());
      // Referenced until it has exited: an idle (unreferenced) thread would let the process end before this resolves.
      t.ref();
      t.postMessage('close');
    });
  }

  private start(): Worker {
    if (this.thread) return this.thread;
    const { entry, eval: isEval } = storeThreadEntry('sqlite-read-thread');
    const t = new Worker(entry, { eval: isEval, workerData: { path: this.file }, resourceLimits: THREAD_LIMITS });
    t.unref();
    t.on('message', (r: ReadReply) => this.answered(r));
    const down = (e: unknown) => {
      if (this.thread !== t) return;
      this.thread = null;
      const err = e instanceof Error ? e : new Error(`the SQLite read thread stopped (${String(e)})`);
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    t.on('error', down);
    t.on('exit', (code) => down(new Error(`the SQLite read thread exited with code ${code}`)));
    this.thread = t;
    return t;
  }

  private answered(r: ReadReply): void {
    const w = this.waiting.get(r.id);
    if (!w) return;
    this.waiting.delete(r.id);
    if (this.waiting.size === 0) this.thread?.unref();
    if ('rows' in r) w.resolve(r.rows);
    else w.reject(Object.assign(new Error(r.error), r.code ? { code: r.code } : {}));
  }
}

class ReaderConnection implements DatabaseConnection {
  constructor(private readonly reader: SqliteReader) {}

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    return { rows: (await this.reader.query(q.sql, q.parameters)) as R[] };
  }

  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the SQLite read thread does not stream');
  }
}

class ReaderDriver implements Driver {
  private readonly connection: ReaderConnection;

  constructor(private readonly reader: SqliteReader) {
    this.connection = new ReaderConnection(reader);
  }

  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }
  async beginTransaction(): Promise<void> {
    throw new Error('the SQLite read thread runs single read queries, not transactions');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    await this.reader.close();
  }
}

/** A Kysely dialect over the read thread: SQLite's SQL, the queries run by `reader`. */
export class SqliteReaderDialect implements Dialect {
  constructor(private readonly reader: SqliteReader) {}
  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    return new ReaderDriver(this.reader);
  }
  createQueryCompiler(): QueryCompiler {
    return new LiteralLimitCompiler();
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
