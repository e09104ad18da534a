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

export class SqliteBatchWriter {
  private ledgerTx: ((rows: LedgerTuple[]) => void) | null = null;
  private logTx: ((rows: LogTuple[]) => void) | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly raw: BetterSqlite3.Database,
  ) {}

  /** Insert charges (a duplicate idempotency key is skipped); only inserted rows move their token's `spent`. */
  ledger(rows: LedgerTuple[]): Promise<void> {
    return this.db.connection().execute(async () => this.ledgerWriter()(rows));
  }

  /** Insert request-log rows (a duplicate request id is skipped). */
  requestLog(rows: LogTuple[]): Promise<void> {
    return this.db.connection().execute(async () => this.logWriter()(rows));
  }

  // Prepared on first use: the tables exist only after the store's migrations ran.
  private ledgerWriter(): (rows: LedgerTuple[]) => void {
    if (this.ledgerTx) return this.ledgerTx;
    const ins = this.raw.prepare(
      'INSERT INTO ledger (idempotency_key, token_id, model, kind, quantities, unit_prices, amount, request_id, task_id, upstream_request_id, created_at) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING',
    );
    const spend = this.raw.prepare('UPDATE tokens SET spent = spent + ? WHERE id = ?');
    this.ledgerTx = this.raw.transaction((rows: LedgerTuple[]) => {
      const perToken = new Map<string, number>();
      for (const r of rows) {
        const inserted = ins.run(r[0], r[1], r[2], r[3], json(r[4]), json(r[5]), r[6], r[7], r[8], r[9], r[10]).changes > 0;
        if (inserted) perToken.set(r[1], (perToken.get(r[1]) ?? 0) + r[6]);
      }
      for (const [tokenId, amount] of perToken) if (amount > 0) spend.run(amount, tokenId);
    });
    return this.ledgerTx;
  }

  private logWriter(): (rows: LogTuple[]) => void {
    if (this.logTx) return this.logTx;
    const ins = this.raw.prepare(
      'INSERT INTO request_log (request_id, token_id, model, endpoint, method, status, latency_ms, usage, amount, upstream_request_id, error_code, created_at) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (request_id) DO NOTHING',
    );
    this.logTx = this.raw.transaction((rows: LogTuple[]) => {
      for (const r of rows) ins.run(r[0], r[1], r[2], r[3], r[4], r[5], r[6], json(r[7]), r[8], r[9], r[10], r[11]);
    });
    return this.logTx;
  }
}
