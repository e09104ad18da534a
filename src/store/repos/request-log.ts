// The request log: one row per answered request, group-committed off the request path (RequestLogWriter), and
// read back by the admin API (RequestLogRepo).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { clip } from '../clip.ts';
import { GroupCommit, type FlushTick, type WriteBacklog } from '../group-commit.ts';
import { jsonText } from '../../json/json-text.ts';
import { parseJson } from '../json.ts';
import type { LogTuple, SqliteBatchWriter } from '../sqlite-batch-writer.ts';
import { newestFirst, whereList, type Keyset, type TimeFilter } from '../keyset.ts';

/** One upstream attempt of a call (routing/failover.ts), as the request log stores and the admin API shows it. */
export interface UpstreamAttempt {
  channel_id: string;
  outcome: 'ok' | 'error';
  /** The gateway error code of a failed attempt; null when it succeeded. */
  error_code: string | null;
  latency_ms: number;
}

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
  /** The channel that answered; absent or null when no upstream attempt succeeded. */
  channelId?: string | null;
  /** Every upstream attempt, in order; absent or null when no upstream call was made. */
  attempts?: readonly UpstreamAttempt[] | null;
  /** ms to the first byte of the answer; absent or null when nothing was written. */
  ttfbMs?: number | null;
  /** The upstream's own words on a refusal (status, code, message): operators only; absent or null otherwise. */
  upstreamError?: string | null;
  createdAt: number;
}

export interface RequestLogWriterOptions {
  onError: (e: unknown) => void;
  /** Rows the store refused while others were written (group-commit.ts): they leave the queue; report them. */
  onRejected?: (rows: RequestLogRow[], e: unknown) => void;
  /** SQLite: write batches through the store's prepared statements (store.batchWriter) instead of Kysely. */
  batchWriter?: SqliteBatchWriter | null;
  /**
   * Puts the charges queued so far ahead of what is written next (the meter's chargesAhead). Awaited before a batch
   * holding a charged row is written, so a request-log row that shows a charge is never in the store before its
   * ledger line: a reconcile run on any instance, at any moment, does not see a charge the ledger lacks merely
   * because the two queues flushed apart.
   */
  chargesAhead?: () => Promise<void>;
  /** Flush interval of its own timer (ms); with `tick`, the tick's interval applies instead. */
  intervalMs?: number;
  /** A flush timer shared with the meter's queue (group-commit.ts): both hand their rows over in one turn. */
  tick?: FlushTick;
  maxBatch?: number;
}

/**
 * Group-commits request-log rows off the request's critical path: rows are queued and written in one batch
 * every `intervalMs` (or when `maxBatch` are queued), and flushed on close. A failed batch stays queued and is retried.
 * Crash window: at most `intervalMs` of rows
 * plus the batch being written (the ledger has its own guarantees).
 */
export class RequestLogWriter {
  private readonly batches: GroupCommit<RequestLogRow>;

  private readonly batchWriter: SqliteBatchWriter | null;

  private readonly chargesAhead: (() => Promise<void>) | null;

  constructor(
    private readonly db: Kysely<Database>,
    opts: RequestLogWriterOptions,
  ) {
    const { onError, onRejected } = opts;
    this.batchWriter = opts.batchWriter ?? null;
    this.chargesAhead = opts.chargesAhead ?? null;
    this.batches = new GroupCommit({
      intervalMs: opts.intervalMs ?? 10,
      maxBatch: opts.maxBatch ?? 500,
      ...(opts.tick ? { tick: opts.tick } : {}),
      write: (rows) => this.insert(rows),
      onError: (e) => onError(e),
      ...(onRejected ? { onRejected } : {}),
    });
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

  /** Rows queued and not yet written, oldest first. */
  unwritten(): readonly RequestLogRow[] {
    return this.batches.unwritten();
  }

  private async insert(rows: RequestLogRow[]): Promise<void> {
    if (this.chargesAhead && rows.some((r) => r.amount > 0)) await this.chargesAhead();
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
// upstream_request_id varchar(200), error_code varchar(100), method varchar(10), upstream_error varchar(1000) — on both
// dialects alike.
function logTuple(r: RequestLogRow): LogTuple {
  return [
    r.requestId,
    r.tokenId,
    clip(r.model, 200),
    clip(r.endpoint, 200),
    clip(r.method, 10),
    r.status,
    r.latencyMs,
    r.usage ?? null,
    r.amount,
    clip(r.upstreamRequestId, 200),
    clip(r.errorCode, 100),
    r.createdAt,
    r.channelId ?? null,
    attemptsOf(r),
    r.ttfbMs ?? null,
    clip(r.upstreamError ?? null, 1000),
  ];
}

/** The attempts as stored: a JSON array, or null when there were none. */
const attemptsOf = (r: RequestLogRow): UpstreamAttempt[] | null =>
  r.attempts && r.attempts.length > 0 ? (r.attempts as UpstreamAttempt[]) : null;

function columns(r: RequestLogRow) {
  return {
    request_id: r.requestId,
    token_id: r.tokenId,
    model: clip(r.model, 200),
    endpoint: clip(r.endpoint, 200),
    method: clip(r.method, 10),
    status: r.status,
    latency_ms: r.latencyMs,
    usage: jsonText(r.usage),
    amount: r.amount,
    upstream_request_id: clip(r.upstreamRequestId, 200),
    error_code: clip(r.errorCode, 100),
    created_at: r.createdAt,
    channel_id: r.channelId ?? null,
    attempts: jsonText(attemptsOf(r)),
    ttfb_ms: r.ttfbMs ?? null,
    upstream_error: clip(r.upstreamError ?? null, 1000),
  };
}

/** A status filter: one HTTP status, or a class (4 for 4xx). */
export type StatusFilter = { exact: number } | { hundreds: number };

export interface RequestLogFilter extends TimeFilter {
  requestId?: string | undefined;
  /** Only these tokens' rows (a customer account's tokens: the portal). */
  tokenIds?: readonly string[] | undefined;
  status?: StatusFilter | undefined;
  /** Only rows after this one in the newest-first order (`id`: its request id). */
  after?: Keyset | undefined;
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
  ttfb_ms: number | null;
  channel_id: string | null;
  attempts: UpstreamAttempt[] | null;
  usage: unknown;
  amount: number;
  upstream_request_id: string | null;
  error_code: string | null;
  /** The upstream's own words on a refusal: operators only. */
  upstream_error: string | null;
  created_at: number;
}

/** Reads of the request log, newest first; and the retention sweep. */
export class RequestLogRepo {
  constructor(
    private readonly db: Kysely<Database>,
    /** Where deletes go (the read side may be a read-only connection). */
    private readonly writeDb: Kysely<Database> = db,
  ) {}

  /**
   * Newest first, ordered by (created_at, request_id): a cursor is a row's pair, so rows sharing a millisecond are
   * neither skipped nor repeated from one page to the next.
   */
  async list(f: RequestLogFilter): Promise<RequestLogEntry[]> {
    let q = whereList(this.db.selectFrom('request_log').selectAll(), 'request_log', {
      ...f,
      equal: { request_id: f.requestId },
    });
    if (f.tokenIds !== undefined)
      q = f.tokenIds.length ? q.where('token_id', 'in', [...f.tokenIds]) : q.where(sql.lit(false));
    const st = f.status;
    if (st !== undefined)
      q =
        'exact' in st
          ? q.where('status', '=', st.exact)
          : q.where('status', '>=', st.hundreds * 100).where('status', '<', st.hundreds * 100 + 100);
    const rows = await newestFirst(q, 'request_log').limit(f.limit).execute();
    return rows.map((r) => ({
      request_id: r.request_id,
      token_id: r.token_id,
      model: r.model,
      endpoint: r.endpoint,
      method: r.method,
      status: Number(r.status),
      latency_ms: Number(r.latency_ms),
      ttfb_ms: r.ttfb_ms === null ? null : Number(r.ttfb_ms),
      channel_id: r.channel_id,
      attempts: parseJson<UpstreamAttempt[]>(r.attempts),
      usage: parseJson(r.usage),
      amount: Number(r.amount),
      upstream_request_id: r.upstream_request_id,
      error_code: r.error_code,
      upstream_error: r.upstream_error ?? null,
      created_at: Number(r.created_at),
    }));
  }

  /**
   * Delete up to `batch` rows created before `before`, oldest first; returns how many went. Small batches keep each
   * delete's write lock short (SQLite has one writer; the request path's rows wait for it).
   */
  async deleteOlderThan(before: number, batch: number): Promise<number> {
    const r = await this.writeDb
      .deleteFrom('request_log')
      .where('request_id', 'in', (eb) =>
        eb
          .selectFrom('request_log')
          .select('request_id')
          .where('created_at', '<', before)
          .orderBy('created_at')
          .limit(batch),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
