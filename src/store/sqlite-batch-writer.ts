// SQLite group-commit writes of per-request rows (ledger charges, request-log rows), one transaction of prepared
// statements per batch (sqlite-row-writes.ts). By default the batch is written in-thread: one synchronous
// transaction, run while holding Kysely's single connection so it never interleaves with an open Kysely
// transaction (whose ROLLBACK would otherwise take these rows with it).
// With TOLLWAY_SQLITE_WRITER_THREAD a file store hands each batch to a writer thread instead
// (sqlite-writer-thread.ts: a second connection to the same file), so neither the inserts, the commit's WAL
// writes nor the checkpoints (and their fsync) run on the event loop; the hand-over is one structured clone per
// batch. It is opt-in because it trades event-loop time for more total CPU and memory (a second V8 isolate): on
// a 2-core host the other core is busy with the load generator and the upstream, so throughput does not rise
// (docs/performance.md#sqlite-threads). With cores to spare it takes the database off the request path's
// thread. An in-memory store, or one whose thread cannot start or has died, writes in-thread.
// Exactly-once does not depend on which path wrote: every row is keyed (ledger idempotency key, request id) and
// inserted with ON CONFLICT DO NOTHING, so a batch retried after a thread died mid-reply cannot count twice.
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';
import {
  prepareRowWrites,
  writeBatch,
  type LedgerCut,
  type LedgerStatements,
  type LedgerTuple,
  type LogTuple,
  type RowWrites,
} from './sqlite-row-writes.ts';
import type { WriterData, WriterError, WriterLedger, WriterReply, WriterRequest } from './sqlite-writer-thread.ts';
import type { SqliteCheckpointer } from './sqlite-checkpointer.ts';
import { whileBusy } from './sqlite-busy.ts';
import { storeThreadEntry } from './thread-entry.ts';

export type { AllowanceTuple, LedgerCut, LedgerStatements, LedgerTuple, LogTuple } from './sqlite-row-writes.ts';

interface Waiter {
  kind: 'ledger' | 'log';
  /** With the charges of the commit cut to their balances' room (of every waiter's rows: each takes its own by key). */
  resolve: (cuts: LedgerCut[]) => void;
  reject: (e: unknown) => void;
}

/** A batch sent to the thread and not yet answered. */
interface InFlight {
  waiters: Waiter[];
}

// The thread's own heap stays small: it holds one batch at a time.
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 48 };

/**
 * Batches handed over in the same turn of the event loop (the ledger's and the request log's group commits
 * fire together, on their shared tick) are committed in ONE transaction. If that transaction fails, each part is
 * retried on its own, so a bad request-log batch can never hold back charges. Commits happen in the order the
 * rows were handed over (in-thread one after the other; the thread takes its messages in order), which is what
 * lets a request-log batch follow its charges without waiting for their commit (StoreMeter.chargesAhead).
 */
export class SqliteBatchWriter {
  private ledgerRows: LedgerTuple[] = [];
  private logRows: LogTuple[] = [];
  private waiters: Waiter[] = [];
  private scheduled = false;
  private writes: RowWrites | null = null;
  /** The ledger's statements (metering's: useLedger); null until given, when a batch with charges fails. */
  private ledgerStatements: LedgerStatements | null = null;
  private thread: Worker | null = null;
  /** Set once the thread failed to start or died: from then on this store writes in-thread. */
  private threadDown: boolean;
  private nextId = 1;
  private readonly inFlight = new Map<number, InFlight>();
  private drained: (() => void) | null = null;
  /** The in-thread commits, one after the other: a batch waiting out another connection's lock keeps its place. */
  private committing: Promise<void> = Promise.resolve();

  /** `file`: the database file for a writer thread; null writes in-thread. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly raw: BetterSqlite3.Database,
    private readonly file: string | null = null,
    /** The store's checkpoint thread: told after each commit, and holds the next one while it checkpoints. */
    private readonly checkpoints: SqliteCheckpointer | null = null,
  ) {
    this.threadDown = file === null;
  }

  /** Take the ledger's statements (the meter gives them when it is built on this store); the first given stay. */
  useLedger(s: LedgerStatements): void {
    if (this.ledgerStatements !== null) return;
    this.ledgerStatements = s;
    this.writes = null;
    const ledger: WriterLedger = { ledgerModule: s.moduleUrl };
    this.thread?.postMessage(ledger);
  }

  /**
   * Insert charges (a duplicate idempotency key is skipped); only inserted rows move their token's `spent`. Resolves
   * with the charges of its commit that were cut to their balances' room (rows of other callers' batches included).
   */
  ledger(rows: LedgerTuple[]): Promise<LedgerCut[]> {
    for (const r of rows) this.ledgerRows.push(r);
    return this.wait('ledger');
  }

  /** Insert request-log rows (a duplicate request id is skipped). */
  async requestLog(rows: LogTuple[]): Promise<void> {
    for (const r of rows) this.logRows.push(r);
    await this.wait('log');
  }

  /** True while batches are committed by the writer thread (false: in-thread). */
  get threaded(): boolean {
    return !this.threadDown;
  }

  /** Stop the writer thread (after the last batches were answered); later batches are written in-thread. */
  async close(): Promise<void> {
    this.threadDown = true;
    const t = this.thread;
    if (!t) return;
    if (this.inFlight.size > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    this.thread = null;
    await new Promise<void>((resolve) => {
      t.once('exit', () => resolve());
      // Referenced until it has exited: an idle (unreferenced) thread would let the process end before this resolves.
      t.ref();
      t.postMessage('close');
    });
  }

  private wait(kind: Waiter['kind']): Promise<LedgerCut[]> {
    return new Promise<LedgerCut[]>((resolve, reject) => {
      this.waiters.push({ kind, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.commit());
    });
  }

  private commit(): void {
    if (this.checkpoints) this.checkpoints.whenIdle(() => void this.commitNow());
    else void this.commitNow();
  }

  private async commitNow(): Promise<void> {
    this.scheduled = false;
    // (A commit that waited for a checkpoint may find its rows already taken by a later one.)
    if (this.waiters.length === 0) return;
    const ledger = this.ledgerRows;
    const log = this.logRows;
    const waiters = this.waiters;
    this.ledgerRows = [];
    this.logRows = [];
    this.waiters = [];
    if (!this.threadDown && this.send(ledger, log, waiters)) return;
    this.committing = this.committing.then(() => this.commitInThread(ledger, log, waiters));
    await this.committing;
  }

  private send(ledger: LedgerTuple[], log: LogTuple[], waiters: Waiter[]): boolean {
    let t: Worker;
    try {
      t = this.startThread();
      const id = this.nextId++;
      const req: WriterRequest = { id, ledger, log };
      t.postMessage(req);
      this.inFlight.set(id, { waiters });
      // Referenced while a batch is out, so the process cannot exit with rows unanswered; idle, it never
      // holds the process open.
      t.ref();
      return true;
    } catch {
      this.threadDown = true;
      return false;
    }
  }

  private startThread(): Worker {
    if (this.thread) return this.thread;
    const { entry, eval: isEval } = storeThreadEntry('sqlite-writer-thread');
    const workerData: WriterData = { path: this.file!, ledgerModule: this.ledgerStatements?.moduleUrl ?? null };
    const t = new Worker(entry, { eval: isEval, workerData, resourceLimits: THREAD_LIMITS });
    t.unref();
    t.on('message', (r: WriterReply) => this.answered(r));
    const down = (e: unknown) => {
      if (this.thread !== t) return;
      this.thread = null;
      this.threadDown = true;
      // Unanswered batches fail back to their group commits, which retry them (now in-thread); rows the thread
      // did commit are skipped by their keys.
      const err = e instanceof Error ? e : new Error(`the SQLite writer thread stopped (${String(e)})`);
      for (const f of this.inFlight.values()) for (const w of f.waiters) w.reject(err);
      this.inFlight.clear();
      this.drained?.();
      this.drained = null;
    };
    t.on('error', down);
    t.on('exit', (code) => down(new Error(`the SQLite writer thread exited with code ${code}`)));
    this.thread = t;
    return t;
  }

  private answered(r: WriterReply): void {
    const f = this.inFlight.get(r.id);
    if (!f) return;
    this.inFlight.delete(r.id);
    if (this.inFlight.size === 0) {
      this.thread?.unref();
      this.drained?.();
      this.drained = null;
    }
    this.checkpoints?.committed();
    for (const w of f.waiters) {
      const e = w.kind === 'ledger' ? r.ledger : r.log;
      if (e === null) w.resolve(r.cuts);
      else w.reject(errorFrom(e));
    }
  }

  private async commitInThread(ledger: LedgerTuple[], log: LogTuple[], waiters: Waiter[]): Promise<void> {
    const settle = (kind: Waiter['kind'], e: unknown, cuts: LedgerCut[] = []) => {
      for (const w of waiters) if (w.kind === kind) e === undefined ? w.resolve(cuts) : w.reject(e);
    };
    // Runs while holding Kysely's single connection (see the file comment), let go while another connection holds the
    // write lock (sqlite-busy.ts). A batch tried again after a part of it was written skips that part by its keys.
    await whileBusy(() =>
      this.db.connection().execute(async () => {
        const statements = this.ledgerStatements;
        this.writes ??= prepareRowWrites(this.raw, statements && ((raw) => statements.prepare(raw)));
        return writeBatch(this.writes, ledger, log);
      }),
    )
      .then((out) => {
        settle('ledger', out.ledger, out.cuts);
        settle('log', out.log);
        this.checkpoints?.committed();
      })
      .catch((e: unknown) => {
        settle('ledger', e);
        settle('log', e);
      });
  }
}

/** The thread's error again as an Error of the same kind, with its code (so isRowRefusal reads it the same). */
function errorFrom(e: WriterError): Error {
  const err =
    e.name === 'TypeError'
      ? new TypeError(e.message)
      : e.name === 'RangeError'
        ? new RangeError(e.message)
        : new Error(e.message);
  return e.code === undefined ? err : Object.assign(err, { code: e.code });
}
