// SQLite group-commit writes of per-request rows (ledger charges, request-log rows): one synchronous
// better-sqlite3 transaction of prepared statements per batch — no query building per row. It runs while
// holding Kysely's single connection, so it never interleaves with an open Kysely transaction (whose ROLLBACK
// would otherwise take these rows with it). The SQL mirrors the dialect-neutral Kysely writes in
// src/metering/meter.ts and src/store/repos/request-log.ts, used on PostgreSQL.
// (A worker thread with its own connection was measured too: on the 2-core bench machine it cost more CPU in
// total — cloning rows to the thread, a second event loop — and throughput did not rise, so it was dropped.)
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** One ledger charge, in column order. */
export type LedgerTuple = [key: string, tokenId: string, model: string, kind: string, quantities: unknown, unitPrices: unknown, amount: number, requestId: string | null, taskId: string | null, upstreamRequestId: string | null, createdAt: number];
/** One request-log row, in column order. */
export type LogTuple = [requestId: string, tokenId: string | null, model: string | null, endpoint: string, method: string, status: number, latencyMs: number, usage: unknown, amount: number, upstreamRequestId: string | null, errorCode: string | null, createdAt: number];

const json = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));

interface Waiter {
  kind: 'ledger' | 'log';
  resolve: () => void;
  reject: (e: unknown) => void;
}

/**
 * Batches handed over in the same turn of the event loop (the ledger's and the request log's group commits
 * fire together) are committed in ONE transaction: under load, the commit (writing the touched pages to the
 * WAL) cost as much as the inserts themselves. If that transaction fails, each part is retried on its own, so
 * a bad request-log batch can never hold back charges.
 */
export class SqliteBatchWriter {
  private ledgerRows: LedgerTuple[] = [];
  private logRows: LogTuple[] = [];
  private waiters: Waiter[] = [];
  private scheduled = false;
  private both: ((ledger: LedgerTuple[], log: LogTuple[]) => void) | null = null;
  private onlyLedger: ((rows: LedgerTuple[]) => void) | null = null;
  private onlyLog: ((rows: LogTuple[]) => void) | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly raw: BetterSqlite3.Database,
  ) {}

  /** Insert charges (a duplicate idempotency key is skipped); only inserted rows move their token's `spent`. */
  ledger(rows: LedgerTuple[]): Promise<void> {
    for (const r of rows) this.ledgerRows.push(r);
    return this.wait('ledger');
  }

  /** Insert request-log rows (a duplicate request id is skipped). */
  requestLog(rows: LogTuple[]): Promise<void> {
    for (const r of rows) this.logRows.push(r);
    return this.wait('log');
  }

  private wait(kind: Waiter['kind']): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ kind, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => void this.commit());
    });
  }

  private async commit(): Promise<void> {
    this.scheduled = false;
    const ledger = this.ledgerRows;
    const log = this.logRows;
    const waiters = this.waiters;
    this.ledgerRows = [];
    this.logRows = [];
    this.waiters = [];
    const settle = (kind: Waiter['kind'], e?: unknown) => {
      for (const w of waiters) if (w.kind === kind) (e === undefined ? w.resolve() : w.reject(e));
    };
    // Runs while holding Kysely's single connection (see the file comment).
    await this.db.connection().execute(async () => {
      this.prepare();
      try {
        this.both!(ledger, log);
        settle('ledger');
        settle('log');
        return;
      } catch {
        // fall through: each part on its own
      }
      for (const [kind, run] of [['ledger', () => this.onlyLedger!(ledger)], ['log', () => this.onlyLog!(log)]] as const) {
        try {
          run();
          settle(kind);
        } catch (e) {
          settle(kind, e);
        }
      }
    }).catch((e: unknown) => {
      settle('ledger', e);
      settle('log', e);
    });
  }

  // Prepared on first use: the tables exist only after the store's migrations ran.
  private prepare(): void {
    if (this.both) return;
    const ins = this.raw.prepare(
      'INSERT INTO ledger (idempotency_key, token_id, model, kind, quantities, unit_prices, amount, request_id, task_id, upstream_request_id, created_at) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING',
    );
    const spend = this.raw.prepare('UPDATE tokens SET spent = spent + ? WHERE id = ?');
    const insertLedger = (rows: LedgerTuple[]) => {
      const perToken = new Map<string, number>();
      for (const r of rows) {
        // Only a row that was really inserted (not a duplicate key) moves `spent`, in the same transaction.
        const inserted = ins.run(r[0], r[1], r[2], r[3], json(r[4]), json(r[5]), r[6], r[7], r[8], r[9], r[10]).changes > 0;
        if (inserted) perToken.set(r[1], (perToken.get(r[1]) ?? 0) + r[6]);
      }
      for (const [tokenId, amount] of perToken) if (amount > 0) spend.run(amount, tokenId);
    };
    const log = this.raw.prepare(
      'INSERT INTO request_log (request_id, token_id, model, endpoint, method, status, latency_ms, usage, amount, upstream_request_id, error_code, created_at) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (request_id) DO NOTHING',
    );
    const insertLog = (rows: LogTuple[]) => {
      for (const r of rows) log.run(r[0], r[1], r[2], r[3], r[4], r[5], r[6], json(r[7]), r[8], r[9], r[10], r[11]);
    };
    this.both = this.raw.transaction((l: LedgerTuple[], g: LogTuple[]) => {
      if (l.length > 0) insertLedger(l);
      if (g.length > 0) insertLog(g);
    });
    this.onlyLedger = this.raw.transaction(insertLedger);
    this.onlyLog = this.raw.transaction(insertLog);
  }
}
