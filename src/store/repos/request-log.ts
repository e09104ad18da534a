import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { GroupCommit } from '../group-commit.ts';
import type { LogTuple } from '../sqlite-batch-writer.ts';
import { sqliteBatchWriter } from '../sqlite.ts';

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
 * Group-commits request-log rows off the request's critical path: rows are queued and written in one batch
 * every `intervalMs` (or when `maxBatch` are queued), and flushed on close. A failed batch stays queued and is retried. Crash window: at most `intervalMs` of rows
 * plus the batch being written (the ledger has its own guarantees).
 */
export class RequestLogWriter {
  private readonly batches: GroupCommit<RequestLogRow>;

  constructor(
    private readonly db: Kysely<Database>,
    onError: (e: unknown) => void,
    intervalMs = 10,
    maxBatch = 500,
    onRejected?: (rows: RequestLogRow[], e: unknown) => void,
  ) {
    this.batches = new GroupCommit({ intervalMs, maxBatch, write: (rows) => this.insert(rows), onError: (e) => onError(e), ...(onRejected ? { onRejected } : {}) });
  }

  write(row: RequestLogRow): void {
    this.batches.push(row);
  }

  flush(): Promise<void> {
    return this.batches.flush();
  }

  private async insert(rows: RequestLogRow[]): Promise<void> {
    const writer = sqliteBatchWriter(this.db);
    if (writer) return writer.requestLog(rows.map(logTuple));
    for (let i = 0; i < rows.length; i += 100) {
      await this.db
        .insertInto('request_log')
        .values(rows.slice(i, i + 100).map(columns))
        .onConflict((oc) => oc.column('request_id').doNothing())
        .execute();
    }
  }
}

function logTuple(r: RequestLogRow): LogTuple {
  return [r.requestId, r.tokenId, r.model, r.endpoint, r.method, r.status, r.latencyMs, r.usage ?? null, r.amount, r.upstreamRequestId, r.errorCode, r.createdAt];
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
