// The SQL of the per-request rows (ledger charges, request-log rows) as prepared better-sqlite3 statements, one
// transaction per batch. Shared by the in-thread writer and the writer thread (sqlite-writer-thread.ts); the
// SQL mirrors the dialect-neutral Kysely writes in src/metering/meter.ts and src/store/repos/request-log.ts.
import type BetterSqlite3 from 'better-sqlite3';
import { jsonText } from '../json/json-text.ts';
import { isSqliteBusy } from './sqlite-busy.ts';
import { byToken, ChunkedInsert, eachChunk } from './sqlite-chunked-insert.ts';
import type { LedgerCut, LedgerInsert, LedgerTuple, LogTuple } from './sqlite-row-tuples.ts';

export type {
  AllowanceTuple,
  LedgerCut,
  LedgerInsert,
  LedgerStatements,
  LedgerTuple,
  LogTuple,
} from './sqlite-row-tuples.ts';

export interface RowWrites {
  both: (ledger: LedgerTuple[], log: LogTuple[]) => LedgerCut[];
  onlyLedger: (rows: LedgerTuple[]) => LedgerCut[];
  onlyLog: (rows: LogTuple[]) => void;
}

/** What became of each kind of a batch: undefined when written, else the error. */
export interface BatchOutcome {
  ledger?: unknown;
  log?: unknown;
  /** The charges written cut to their balances' room (metering/balances/sqlite-ledger-insert.ts). */
  cuts: LedgerCut[];
}

/**
 * Prepare the statements (the tables must exist: call after the store's migrations ran). `prepareLedger`: the
 * ledger's statements (they walk the money rows, which are metering's); null: a batch with charges fails.
 */
export function prepareRowWrites(
  raw: BetterSqlite3.Database,
  prepareLedger: ((raw: BetterSqlite3.Database) => LedgerInsert) | null,
): RowWrites {
  const insertLedger: LedgerInsert = prepareLedger?.(raw) ?? noLedger;
  // What successful calls leave null or the same (status, error code, upstream error) is bound once per chunk too.
  const log = new ChunkedInsert(
    raw,
    'INSERT OR FAIL INTO request_log (request_id, token_id, model, endpoint, method, status, latency_ms, usage, amount, upstream_request_id, error_code, created_at, channel_id, attempts, ttfb_ms, upstream_error)',
    '(?, @token, @model, @endpoint, @method, @status, ?, ?, ?, ?, @error, ?, @channel, ?, ?, @upstreamError)',
    'ON CONFLICT (request_id) DO NOTHING',
  );
  const insertLog = (rows: LogTuple[]) => {
    for (const group of byToken(rows, logToken)) {
      eachChunk(group, sameRoute, (i, k) => {
        const h = group[i]!;
        const v: unknown[] = [];
        for (let j = i; j < i + k; j++) {
          const r = group[j]!;
          v.push(r[0], r[6], jsonText(r[7]), r[8], r[9], r[11], jsonText(r[13]), r[14]);
        }
        const shared = {
          token: h[1],
          model: h[2],
          endpoint: h[3],
          method: h[4],
          status: h[5],
          error: h[10],
          channel: h[12],
          upstreamError: h[15] ?? null,
        };
        log.run(k, v, shared);
      });
    }
  };
  // IMMEDIATE: take the write lock up front, so another connection's commit in between cannot fail the batch.
  const both = raw.transaction((l: LedgerTuple[], g: LogTuple[]) => {
    const cuts = l.length > 0 ? insertLedger(l) : [];
    if (g.length > 0) insertLog(g);
    return cuts;
  });
  const onlyLedger = raw.transaction(insertLedger);
  const onlyLog = raw.transaction(insertLog);
  return {
    both: (l, g) => both.immediate(l, g),
    onlyLedger: (r) => onlyLedger.immediate(r),
    onlyLog: (r) => onlyLog.immediate(r),
  };
}

const noLedger: LedgerInsert = () => {
  throw new Error('the SQLite batch writer was given charges before the ledger statements (useLedger)');
};

const logToken = (r: LogTuple): string | null => r[1];
/** Rows of one chunk share their token (the group's), model, route, channel, status, error code and upstream error. */
const sameRoute = (a: LogTuple, b: LogTuple): boolean =>
  a[2] === b[2] &&
  a[3] === b[3] &&
  a[4] === b[4] &&
  a[12] === b[12] &&
  a[5] === b[5] &&
  a[10] === b[10] &&
  (a[15] ?? null) === (b[15] ?? null);

/**
 * Both kinds in one transaction (under load the commit — the touched pages written to the WAL — costs as much as
 * the inserts); if that fails, each kind on its own, so a bad request-log batch never holds back charges.
 */
export function writeBatch(w: RowWrites, ledger: LedgerTuple[], log: LogTuple[]): BatchOutcome {
  try {
    return { cuts: w.both(ledger, log) };
  } catch (e) {
    // Busy: the whole batch is the caller's to try again (sqlite-busy.ts); otherwise each part on its own.
    if (isSqliteBusy(e)) throw e;
  }
  const out: BatchOutcome = { cuts: [] };
  if (ledger.length > 0) {
    try {
      out.cuts = w.onlyLedger(ledger);
    } catch (e) {
      if (isSqliteBusy(e)) throw e;
      out.ledger = e;
    }
  }
  if (log.length > 0) {
    try {
      w.onlyLog(log);
    } catch (e) {
      if (isSqliteBusy(e)) throw e;
      out.log = e;
    }
  }
  return out;
}
