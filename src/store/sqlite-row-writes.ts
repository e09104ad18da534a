// The SQL of the per-request rows (ledger charges, request-log rows) as prepared better-sqlite3 statements, one
// transaction per batch. Shared by the in-thread writer and the writer thread (sqlite-writer-thread.ts); the
// SQL mirrors the dialect-neutral Kysely writes in src/metering/meter.ts and src/store/repos/request-log.ts.
import type BetterSqlite3 from 'better-sqlite3';
import { jsonText, jsonTextOnce } from '../json/json-text.ts';
import { boundCharge, MAX_BALANCE, roomLeft } from '../metering/balance-bound.ts';
import { isSqliteBusy } from './sqlite-busy.ts';
import { ChunkedInsert, chunkRows } from './sqlite-chunked-insert.ts';

/** One ledger charge, in column order; a charge taken from an allowance (metering/allowances.ts) has four more. */
export type LedgerTuple =
  | [...LedgerColumns, lease?: null]
  | [...LedgerColumns, lease: LeaseTuple, covered: number, listAmount: number | null, priceGroup: string | null];
type LedgerColumns = [
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
/** An allowance as the batch writer needs it, made once per allowance: its hold's key, its account, its budget rows' keys flat. */
export interface LeaseTuple {
  allowance: string;
  accountId: string | null;
  /** [holder, period, start] of each budget row, one after the other. */
  budgetKeys: Array<string | number>;
}
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
  // One statement shape for every charge: one of no allowance leaves the allowance's three columns null.
  const ins = new ChunkedInsert(
    raw,
    'INSERT INTO ledger (idempotency_key, token_id, model, kind, quantities, unit_prices, amount, request_id, task_id, upstream_request_id, created_at, account_id, list_amount, price_group)',
    14,
    'ON CONFLICT (idempotency_key) DO NOTHING',
  );
  // A chunk's inserted rows are the last `changes` rowids its run gave out (INTEGER PRIMARY KEY: max + 1 each).
  const takeOut = raw.prepare('DELETE FROM ledger WHERE id > ? AND id <= ?');
  const spend = raw.prepare('UPDATE tokens SET spent = spent + ?, held = held - ? WHERE id = ?');
  const extra = prepareExtraWrites(raw);
  const used = raw.prepare<[string], { used: number }>('SELECT spent + held AS used FROM tokens WHERE id = ?');
  const insertLedger = (rows: LedgerTuple[]) => {
    const perToken = new Map<string, number>();
    // Per allowance, what its inserted rows spent and what of that its hold covered.
    const leases = new Map<string, Landed>();
    // The room each token's balance has left (metering/balance-bound.ts), read in this write transaction.
    const rooms = new Map<string, number>();
    const amounts: number[] = [];
    /** The row's values, its amount bounded by its token's room, which it takes (as if every row before it went in). */
    const push = (values: unknown[], r: LedgerTuple): void => {
      const room = rooms.get(r[1]) ?? roomLeftFor(used, r[1]);
      let amount = r[6];
      let quantities = r[4];
      if (amount > room) {
        const c = boundCharge({ amount, quantities: quantities as Record<string, unknown>, unitPrices: {} }, room);
        amount = c.amount;
        quantities = c.quantities;
      }
      rooms.set(r[1], room - amount);
      amounts.push(amount);
      const lease = r[11];
      values.push(r[0], r[1], r[2], r[3], jsonText(quantities), jsonTextOnce(r[5]), amount, r[7], r[8], r[9], r[10]);
      if (lease == null) values.push(null, null, null);
      else values.push(lease.accountId, r[13], r[14]);
    };
    /** An inserted row's spend, on its token and its allowance. */
    const landed = (r: LedgerTuple, amount: number): void => {
      perToken.set(r[1], (perToken.get(r[1]) ?? 0) + amount);
      if (r[11] == null) return;
      const l = leases.get(r[11].allowance);
      if (l === undefined) leases.set(r[11].allowance, { spent: amount, covered: r[12], at: r[10], tokenId: r[1], lease: r[11] });
      else {
        l.spent += amount;
        l.covered += r[12];
        l.at = r[10];
      }
    };
    for (let i = 0; i < rows.length; ) {
      const k = chunkRows(rows.length - i);
      const values: unknown[] = [];
      amounts.length = 0;
      for (let j = i; j < i + k; j++) push(values, rows[j]!);
      const run = ins.run(k, values);
      if (run.changes === k) for (let j = i; j < i + k; j++) landed(rows[j]!, amounts[j - i]!);
      else {
        // A key was there already (a batch tried again): only rows really inserted move `spent` and take room, so the
        // chunk's rows go back out and in again one by one, each knowing whether the rows before it went in.
        const last = Number(run.lastInsertRowid);
        if (run.changes > 0 && takeOut.run(last - run.changes, last).changes !== run.changes) throw new Error('ledger chunk: inserted rows not found by rowid');
        for (let j = i; j < i + k; j++) rooms.set(rows[j]![1], rooms.get(rows[j]![1])! + amounts[j - i]!);
        for (let j = i; j < i + k; j++) {
          const r = rows[j]!;
          const one: unknown[] = [];
          const room = rooms.get(r[1])!;
          amounts.length = 0;
          push(one, r);
          if (ins.run(1, one).changes > 0) landed(r, amounts[0]!);
          else rooms.set(r[1], room);
        }
      }
      i += k;
    }
    // What allowances gave up leaves `held` in the same update as the spend.
    const heldBack = leases.size > 0 ? extra.land(leases.values()) : null;
    for (const [tokenId, amount] of perToken) {
      const back = heldBack?.get(tokenId) ?? 0;
      heldBack?.delete(tokenId);
      if (amount > 0 || back > 0) spend.run(amount, back, tokenId);
    }
    if (heldBack) for (const [tokenId, back] of heldBack) spend.run(0, back, tokenId);
  };
  const log = new ChunkedInsert(
    raw,
    'INSERT INTO request_log (request_id, token_id, model, endpoint, method, status, latency_ms, usage, amount, upstream_request_id, error_code, created_at, channel_id, attempts, ttfb_ms, upstream_error)',
    16,
    'ON CONFLICT (request_id) DO NOTHING',
  );
  const insertLog = (rows: LogTuple[]) => {
    for (let i = 0; i < rows.length; ) {
      const k = chunkRows(rows.length - i);
      const v: unknown[] = [];
      for (let j = i; j < i + k; j++) {
        const r = rows[j]!;
        v.push(r[0], r[1], r[2], r[3], r[4], r[5], r[6], jsonText(r[7]), r[8], r[9], r[10], r[11], r[12], jsonText(r[13]), r[14], r[15] ?? null);
      }
      log.run(k, v);
      i += k;
    }
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

/** The room a token's balance has left, read from its row (MAX_BALANCE for a token not there). */
function roomLeftFor(used: BetterSqlite3.Statement<[string], { used: number }>, tokenId: string): number {
  const u = used.get(tokenId);
  return u === undefined ? MAX_BALANCE : roomLeft(Number(u.used));
}

/**
 * The writes of charges taken from allowances, the same as ledger-write.ts's landAllowanceRow but summed per row they
 * move: a batch of a busy account's calls updates its allowance, its account and its budget rows once each, not once per call.
 */
function prepareExtraWrites(raw: BetterSqlite3.Database) {
  const accounts = raw.prepare('UPDATE accounts SET spent = spent + ?, held = held - ? WHERE id = ?');
  // Only an allowance still open gives up what its charges used (a closed one already gave everything back).
  const use = raw.prepare("UPDATE holds SET amount = amount - ?, updated_at = ? WHERE task_id = ? AND state = 'held' AND amount >= ?");
  // One statement per budget row: cheaper in SQLite than one row-values IN (VALUES …) list, which builds a table of its own.
  const budget = raw.prepare('UPDATE budget_spend SET spent = spent + ?, held = held - ? WHERE holder_id = ? AND period = ? AND period_start = ?');
  return {
    /**
     * The inserted rows' sums, written once per row they move; returns what the allowances gave up per token, for
     * the batch's own update of each token's spend.
     */
    land(leases: Iterable<Landed>): Map<string, number> {
      const heldBack = new Map<string, number>();
      // The rows of one allowance all move by the same amounts: one update per table.
      for (const a of leases) {
        const x = a.lease;
        const back = a.covered > 0 && use.run(a.covered, a.at, x.allowance, a.covered).changes > 0 ? a.covered : 0;
        if (back > 0) heldBack.set(a.tokenId, (heldBack.get(a.tokenId) ?? 0) + back);
        if (x.accountId !== null) accounts.run(a.spent, back, x.accountId);
        // The allowance's hold made its budget rows (they are never deleted), as in ledger-write.ts.
        const k = x.budgetKeys;
        for (let i = 0; i + 2 < k.length; i += 3) budget.run(a.spent, back, k[i], k[i + 1], k[i + 2]);
      }
      return heldBack;
    },
  };
}

/** What one allowance's inserted rows of a batch spent, and what of that its hold covered. */
interface Landed {
  spent: number;
  covered: number;
  /** The last row's time (the hold's updated_at). */
  at: number;
  tokenId: string;
  lease: LeaseTuple;
}

/**
 * Both kinds in one transaction (under load the commit — the touched pages written to the WAL — costs as much as
 * the inserts); if that fails, each kind on its own, so a bad request-log batch never holds back charges.
 */
export function writeBatch(w: RowWrites, ledger: LedgerTuple[], log: LogTuple[]): BatchOutcome {
  try {
    w.both(ledger, log);
    return {};
  } catch (e) {
    // Busy: the whole batch is the caller's to try again (sqlite-busy.ts); otherwise each part on its own.
    if (isSqliteBusy(e)) throw e;
  }
  const out: BatchOutcome = {};
  if (ledger.length > 0) {
    try {
      w.onlyLedger(ledger);
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
