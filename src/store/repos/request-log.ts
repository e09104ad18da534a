import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { clip } from '../clip.ts';
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
    report: { onError: (e: unknown) => void; onRejected?: (rows: RequestLogRow[], e: unknown) => void },
    intervalMs = 10,
    maxBatch = 500,
  ) {
    const { onError, onRejected } = report;
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
