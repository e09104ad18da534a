// The admin lists of the request log and the ledger: one page at a time (newest first, an opaque cursor to the next),
// as JSON or as CSV for a spreadsheet (text fields neutralised like the bill's: csvField).
import { encodeCursor } from '../../contracts/cursor.ts';
import { formatUnits } from '../../pricing/prices.ts';
import type { LedgerEntry, LedgerFilter, LedgerRepo } from '../../store/repos/ledger.ts';
import type { RequestLogEntry, RequestLogFilter, RequestLogRepo } from '../../store/repos/request-log.ts';
import { csvField } from './bills.ts';

export interface Page<T> {
  data: T[];
  has_more: boolean;
  /** Pass back as `cursor` for the next page; present when has_more. */
  next_cursor?: string;
}

/** Rows asked for one more than the limit: the extra one says whether there is a next page, without a count. */
export function pageOf<T>(
  rows: T[],
  limit: number,
  cursorOf: (last: T) => string,
): { data: T[]; more: boolean; next: string | null } {
  const more = rows.length > limit;
  const data = more ? rows.slice(0, limit) : rows;
  return { data, more, next: more ? cursorOf(data[data.length - 1]!) : null };
}

export async function requestLogPage(
  repo: Pick<RequestLogRepo, 'list'>,
  f: RequestLogFilter,
): Promise<Page<RequestLogEntry>> {
  const { data, more, next } = pageOf(await repo.list({ ...f, limit: f.limit + 1 }), f.limit, (r) =>
    encodeCursor([r.created_at, r.request_id]),
  );
  return { data, has_more: more, ...(next !== null ? { next_cursor: next } : {}) };
}

export async function ledgerPage(
  repo: Pick<LedgerRepo, 'list'>,
  f: LedgerFilter,
): Promise<Page<LedgerEntry> & { next_before_id?: number }> {
  const { data, more, next } = pageOf(await repo.list({ ...f, limit: f.limit + 1 }), f.limit, (r) =>
    encodeCursor([r.id]),
  );
  return {
    data,
    has_more: more,
    ...(next !== null ? { next_cursor: next, next_before_id: data[data.length - 1]!.id } : {}),
  };
}

const json = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));
const iso = (ms: number): string => new Date(ms).toISOString();

function csv(header: readonly string[], rows: Array<Array<string | number | null>>): string {
  return `${[header, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n')}\r\n`;
}

export const REQUEST_LOG_CSV_HEADER = [
  'request_id',
  'created_at',
  'created_at_ms',
  'token_id',
  'model',
  'endpoint',
  'method',
  'status',
  'latency_ms',
  'ttfb_ms',
  'channel_id',
  'attempts',
  'error_code',
  'upstream_request_id',
  'amount_micro',
  'usage',
];

export function requestLogCsv(rows: RequestLogEntry[]): string {
  return csv(
    REQUEST_LOG_CSV_HEADER,
    rows.map((r) => [
      r.request_id,
      iso(r.created_at),
      r.created_at,
      r.token_id,
      r.model,
      r.endpoint,
      r.method,
      r.status,
      r.latency_ms,
      r.ttfb_ms,
      r.channel_id,
      json(r.attempts),
      r.error_code,
      r.upstream_request_id,
      r.amount,
      json(r.usage),
    ]),
  );
}

export const LEDGER_CSV_HEADER = [
  'id',
  'created_at',
  'created_at_ms',
  'token_id',
  'model',
  'kind',
  'amount_micro',
  'amount_units',
  'request_id',
  'task_id',
  'idempotency_key',
  'upstream_request_id',
  'quantities',
];

export function ledgerCsv(rows: LedgerEntry[]): string {
  return csv(
    LEDGER_CSV_HEADER,
    rows.map((r) => [
      r.id,
      iso(r.created_at),
      r.created_at,
      r.token_id,
      r.model,
      r.kind,
      r.amount,
      formatUnits(r.amount),
      r.request_id,
      r.task_id,
      r.idempotency_key,
      r.upstream_request_id,
      json(r.quantities),
    ]),
  );
}
