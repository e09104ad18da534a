import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { withSqliteHandle } from '../sqlite.ts';
import type BetterSqlite3 from 'better-sqlite3';

export interface RequestLogRow {
  requestId: string;
  tokenId: string | null;
  model: string | null;
  endpoint: string;
  method: string;
  status: number;
  latencyMs: number;
  usage: unknown;
  amount: number;
  upstreamRequestId: string | null;
  errorCode: string | null;
  createdAt: number;
}

/**
 * Group-commits request-log rows off the request's critical path: rows are buffered and written
 * in one multi-row insert every `intervalMs` (or when `maxBatch` is reached), and flushed on close.
 * Crash window: at most `intervalMs` of log rows (the ledger has its own guarantees).
 */
export class RequestLogWriter {
  private buf: RequestLogRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly onError: (e: unknown) => void,
    private readonly intervalMs = 10,
    private readonly maxBatch = 500,
  ) {}

  write(row: RequestLogRow): void {
    this.buf.push(row);
    if (this.buf.length >= this.maxBatch) void this.flush();
    else if (!this.timer) this.timer = setTimeout(() => void this.flush(), this.intervalMs);
  }

  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.buf;
    if (batch.length === 0) return this.flushing;
    this.buf = [];
    this.flushing = this.flushing.then(() => this.insert(batch)).catch((e: unknown) => this.onError(e));
    return this.flushing;
  }

  private async insert(rows: RequestLogRow[]): Promise<void> {
    // SQLite: one synchronous transaction of prepared single-row inserts (no query building per batch).
    const fast = withSqliteHandle(this.db, (raw) => this.insertSqlite(raw, rows));
    if (fast) return fast;
    for (let i = 0; i < rows.length; i += 100) {
      await this.db
        .insertInto('request_log')
        .values(rows.slice(i, i + 100).map(columns))
        .onConflict((oc) => oc.column('request_id').doNothing())
        .execute();
    }
  }

  private stmt: { raw: BetterSqlite3.Database; run: (rows: RequestLogRow[]) => void } | null = null;

  private insertSqlite(raw: BetterSqlite3.Database, rows: RequestLogRow[]): void {
    if (this.stmt?.raw !== raw) {
      const ins = raw.prepare(
        'INSERT INTO request_log (request_id, token_id, model, endpoint, method, status, latency_ms, usage, amount, upstream_request_id, error_code, created_at) ' +
          'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (request_id) DO NOTHING',
      );
      // Positional binding, in the order of `columns` (no per-row object for named parameters).
      const run = raw.transaction((batch: RequestLogRow[]) => {
        for (const r of batch) ins.run(r.requestId, r.tokenId, r.model, r.endpoint, r.method, r.status, r.latencyMs, usageText(r.usage), r.amount, r.upstreamRequestId, r.errorCode, r.createdAt);
      });
      this.stmt = { raw, run };
    }
    this.stmt.run(rows);
  }
}

function columns(r: RequestLogRow) {
  return {
    request_id: r.requestId,
    token_id: r.tokenId,
    model: r.model,
    endpoint: r.endpoint,
    method: r.method,
    status: r.status,
    latency_ms: r.latencyMs,
    usage: usageText(r.usage),
    amount: r.amount,
    upstream_request_id: r.upstreamRequestId,
    error_code: r.errorCode,
    created_at: r.createdAt,
  };
}

const usageText = (u: unknown): string | null => (u === undefined || u === null ? null : JSON.stringify(u));
