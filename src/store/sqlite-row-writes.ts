// The SQL of the per-request rows (ledger charges, request-log rows) as prepared better-sqlite3 statements, one
// transaction per batch. Shared by the in-thread writer and the writer thread (sqlite-writer-thread.ts); the
// SQL mirrors the dialect-neutral Kysely writes in src/metering/meter.ts and src/store/repos/request-log.ts.
import type BetterSqlite3 from 'better-sqlite3';
import { jsonText, jsonTextOnce } from '../json/json-text.ts';
import { boundCharge, MAX_BALANCE, roomLeft } from '../metering/balance-bound.ts';

/** One ledger charge, in column order. */
export type LedgerTuple = [
  key: string,
  tokenId: string,
  model: string,
  kind: string,
  quantities: unknown,
  unitPrices: unknown,
  amount: number,
  requestId: string | null,
  taskId: string | null,
  upstreamRequestId: string | null,
  createdAt: number,
];
/** One request-log row, in column order. */
export type LogTuple = [
  requestId: string,
  tokenId: string | null,
  model: string | null,
  endpoint: string,
  method: string,
  status: number,
  latencyMs: number,
  usage: unknown,
  amount: number,
  upstreamRequestId: string | null,
  errorCode: string | null,
  createdAt: number,
  channelId: string | null,
  attempts: unknown,
  ttfbMs: number | null,
  upstreamError?: string | null,
];

export interface RowWrites {
  both: (ledger: LedgerTuple[], log: LogTuple[]) => void;
  onlyLedger: (rows: LedgerTuple[]) => void;
  onlyLog: (rows: LogTuple[]) => void;
}

/** What became of each kind of a batch: undefined when written, else the error. */
export interface BatchOutcome {
  ledger?: unknown;
  log?: unknown;
}

/** Prepare the statements (the tables must exist: call after the store's migrations ran). */
export function prepareRowWrites(raw: BetterSqlite3.Database): RowWrites {
  const ins = raw.prepare(
    'INSERT INTO ledger (idempotency_key, token_id, model, kind, quantities, unit_prices, amount, request_id, task_id, upstream_request_id, created_at) ' +
      'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING',
  );
  const spend = raw.prepare('UPDATE tokens SET spent = spent + ? WHERE id = ?');
  const used = raw.prepare<[string], { used: number }>('SELECT spent + held AS used FROM tokens WHERE id = ?');
  const insertLedger = (rows: LedgerTuple[]) => {
    const perToken = new Map<string, number>();
    // The room each token's balance has left (metering/balance-bound.ts), read in this write transaction.
    const rooms = new Map<string, number>();
    const roomOf = (tokenId: string): number => {
      const u = used.get(tokenId);
      return u === undefined ? MAX_BALANCE : roomLeft(Number(u.used));
    };
    for (const r of rows) {
      const room = rooms.get(r[1]) ?? roomOf(r[1]);
      const c = boundCharge({ amount: r[6], quantities: r[4] as Record<string, unknown>, unitPrices: {} }, room);
      // Only a row that was really inserted (not a duplicate key) moves `spent`, in the same transaction.
      const inserted = ins.run(r[0], r[1], r[2], r[3], jsonText(c.quantities), jsonTextOnce(r[5]), c.amount, r[7], r[8], r[9], r[10]).changes > 0;
      rooms.set(r[1], inserted ? room - c.amount : room);
      if (inserted) perToken.set(r[1], (perToken.get(r[1]) ?? 0) + c.amount);
    }
    for (const [tokenId, amount] of perToken) if (amount > 0) spend.run(amount, tokenId);
  };
  const log = raw.prepare(
    'INSERT INTO request_log (request_id, token_id, model, endpoint, method, status, latency_ms, usage, amount, upstream_request_id, error_code, created_at, channel_id, attempts, ttfb_ms, upstream_error) ' +
      'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (request_id) DO NOTHING',
  );
  const insertLog = (rows: LogTuple[]) => {
    for (const r of rows)
      log.run(r[0], r[1], r[2], r[3], r[4], r[5], r[6], jsonText(r[7]), r[8], r[9], r[10], r[11], r[12], jsonText(r[13]), r[14], r[15] ?? null);
  };
  // IMMEDIATE: take the write lock up front, so another connection's commit in between cannot fail the batch.
  const both = raw.transaction((l: LedgerTuple[], g: LogTuple[]) => {
    if (l.length > 0) insertLedger(l);
    if (g.length > 0) insertLog(g);
  });
  const onlyLedger = raw.transaction(insertLedger);
  const onlyLog = raw.transaction(insertLog);
  return { both: (l, g) => both.immediate(l, g), onlyLedger: (r) => onlyLedger.immediate(r), onlyLog: (r) => onlyLog.immediate(r) };
}

/**
 * Both kinds in one transaction (under load the commit — the touched pages written to the WAL — costs as much as
 * the inserts); if that fails, each kind on its own, so a bad request-log batch never holds back charges.
 */
export function writeBatch(w: RowWrites, ledger: LedgerTuple[], log: LogTuple[]): BatchOutcome {
  try {
    w.both(ledger, log);
    return {};
  } catch {
    // fall through: each part on its own
  }
  const out: BatchOutcome = {};
  if (ledger.length > 0) {
    try {
      w.onlyLedger(ledger);
    } catch (e) {
      out.ledger = e;
    }
  }
  if (log.length > 0) {
    try {
      w.onlyLog(log);
    } catch (e) {
      out.log = e;
    }
  }
  return out;
}
