// The request log: one row per answered request, group-committed off the request path (RequestLogWriter), and
// read back by the admin API (RequestLogRepo).
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { clip } from '../clip.ts';
import { GroupCommit, type WriteBacklog } from '../group-commit.ts';
import { parseJson } from '../json.ts';
import type { LogTuple, SqliteBatchWriter } from '../sqlite-batch-writer.ts';
import type { TimeFilter } from './ledger.ts';

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

export interface RequestLogWriterOptions {
  onError: (e: unknown) => void;
  /** Rows the store refused while others were written (group-commit.ts): they leave the queue; report them. */
  onRejected?: (rows: RequestLogRow[], e: unknown) => void;
  /** SQLite: write batches through the store's prepared statements (store.batchWriter) instead of Kysely. */
  batchWriter?: SqliteBatchWriter | null;
  intervalMs?: number;
  maxBatch?: number;
}

/**
 * Group-commits request-log rows off the request's critical path: rows are queued and written in one batch
 * every `intervalMs` (or when `maxBatch` are queued), and flushed on close. A failed batch stays queued and is retried. Crash window: at most `intervalMs` of rows
 * plus the batch being written (the ledger has its own guarantees).
 */
export class RequestLogWriter {
  private readonly batches: GroupCommit<RequestLogRow>;

  private readonly batchWriter: SqliteBatchWriter | null;

  constructor(
    private readonly db: Kysely<Database>,
    opts: RequestLogWriterOptions,
  ) {
    const { onError, onRejected } = opts;
    this.batchWriter = opts.batchWriter ?? null;
    this.batches = new GroupCommit({ intervalMs: opts.intervalMs ?? 10, maxBatch: opts.maxBatch ?? 500, write: (rows) => this.insert(rows), onError: (e) => onError(e), ...(onRejected ? { onRejected } : {}) });
  }

  write(row: RequestLogRow): void {
    this.batches.push(row);
  }

  /** The queue of rows not yet written: its depth and lag (metrics). */
  get backlog(): WriteBacklog {
    return this.batches;
  }

  flush(): Promise<void> {
    return this.batches.flush();
  }

  private async insert(rows: RequestLogRow[]): Promise<void> {
    if (this.batchWriter) return this.batchWriter.requestLog(rows.map(logTuple));
    for (let i = 0; i < rows.length; i += 100) {
      await this.db
        .insertInto('request_log')
        .values(rows.slice(i, i + 100).map(columns))
        .onConflict((oc) => oc.column('request_id').doNothing())
        .execute();
    }
  }
}

// Text from outside (the path, the upstream's request id) is cut to its column's length — model, endpoint and
// upstream_request_id varchar(200), error_code varchar(100), method varchar(10) — on both dialects alike.
function logTuple(r: RequestLogRow): LogTuple {
  return [r.requestId, r.tokenId, clip(r.model, 200), clip(r.endpoint, 200), clip(r.method, 10), r.status, r.latencyMs, r.usage ?? null, r.amount, clip(r.upstreamRequestId, 200), clip(r.errorCode, 100), r.createdAt];
}

function columns(r: RequestLogRow) {
  return {
    request_id: r.requestId,
    token_id: r.tokenId,
    model: clip(r.model, 200),
    endpoint: clip(r.endpoint, 200),
    method: clip(r.method, 10),
    status: r.status,
    latency_ms: r.latencyMs,
    usage: usageText(r.usage),
    amount: r.amount,
    upstream_request_id: clip(r.upstreamRequestId, 200),
    error_code: clip(r.errorCode, 100),
    created_at: r.createdAt,
  };
}

const usageText = (u: unknown): string | null => (u === undefined || u === null ? null : JSON.stringify(u));

export interface RequestLogFilter extends TimeFilter {
  requestId?: string | undefined;
  beforeCreatedAt?: number | undefined;
  limit: number;
}

export interface RequestLogEntry {
  request_id: string;
  token_id: string | null;
  model: string | null;
  endpoint: string;
  method: string;
  status: number;
  latency_ms: number;
  usage: unknown;
  amount: number;
  upstream_request_id: string | null;
  error_code: string | null;
  created_at: number;
}

/** Reads of the request log, newest first. */
export class RequestLogRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async list(f: RequestLogFilter): Promise<RequestLogEntry[]> {
    let q = this.db.selectFrom('request_log').selectAll();
    if (f.requestId !== undefined) q = q.where('request_id', '=', f.requestId);
    if (f.tokenId !== undefined) q = q.where('token_id', '=', f.tokenId);
    if (f.model !== undefined) q = q.where('model', '=', f.model);
    if (f.since !== undefined) q = q.where('created_at', '>=', f.since);
    if (f.until !== undefined) q = q.where('created_at', '<', f.until);
    if (f.beforeCreatedAt !== undefined) q = q.where('created_at', '<', f.beforeCreatedAt);
    const rows = await q.orderBy('created_at', 'desc').orderBy('request_id', 'desc').limit(f.limit).execute();
    return rows.map((r) => ({
      request_id: r.request_id,
      token_id: r.token_id,
      model: r.model,
      endpoint: r.endpoint,
      method: r.method,
      status: Number(r.status),
      latency_ms: Number(r.latency_ms),
      usage: parseJson(r.usage),
      amount: Number(r.amount),
      upstream_request_id: r.upstream_request_id,
      error_code: r.error_code,
      created_at: Number(r.created_at),
    }));
  }
}
