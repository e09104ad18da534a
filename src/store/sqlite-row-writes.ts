// The SQL of the per-request rows (ledger charges, request-log rows) as prepared better-sqlite3 statements, one
// transaction per batch. Shared by the in-thread writer and the writer thread (sqlite-writer-thread.ts); the
// SQL mirrors the dialect-neutral Kysely writes in src/metering/meter.ts and src/store/repos/request-log.ts.
import type BetterSqlite3 from 'better-sqlite3';
import { jsonText, jsonTextOnce } from '../json/json-text.ts';
import { boundCharge, MAX_BALANCE, roomLeft } from '../metering/balance-bound.ts';
import type { BudgetRowKey } from '../metering/billing.ts';

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
  extra?: LedgerExtra | null,
];
/** A charge taken from an allowance (metering/allowances.ts): its account and budget rows, and the allowance's part. */
export interface LedgerExtra {
  accountId: string | null;
  listAmount: number | null;
  priceGroup: string | null;
  budgetRows: BudgetRowKey[];
  /** The allowance's hold key, and what of the charge it covers. */
  allowance: string;
  covered: number;
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
  const ins = raw.prepare(
    'INSERT INTO ledger (idempotency_key, token_id, model, kind, quantities, unit_prices, amount, request_id, task_id, upstream_request_id, created_at) ' +
      'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING',
  );
  const spend = raw.prepare('UPDATE tokens SET spent = spent + ?, held = held - ? WHERE id = ?');
  const extra = prepareExtraWrites(raw);
  const used = raw.prepare<[string], { used: number }>('SELECT spent + held AS used FROM tokens WHERE id = ?');
  const insertLedger = (rows: LedgerTuple[]) => {
    const perToken = new Map<string, number>();
    const landed: Array<{ tokenId: string; amount: number; x: LedgerExtra; at: number }> = [];
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
      const x = r[11];
      const inserted =
        x == null
          ? ins.run(r[0], r[1], r[2], r[3], jsonText(c.quantities), jsonTextOnce(r[5]), c.amount, r[7], r[8], r[9], r[10]).changes > 0
          : extra.insert(r, jsonText(c.quantities), c.amount, x);
      rooms.set(r[1], inserted ? room - c.amount : room);
      if (inserted) perToken.set(r[1], (perToken.get(r[1]) ?? 0) + c.amount);
      if (inserted && x != null) landed.push({ tokenId: r[1], amount: c.amount, x, at: r[10] });
    }
    // What allowances gave up leaves `held` in the same update as the spend.
    const heldBack = landed.length > 0 ? extra.land(landed) : null;
    for (const [tokenId, amount] of perToken) {
      const back = heldBack?.get(tokenId) ?? 0;
      heldBack?.delete(tokenId);
      if (amount > 0 || back > 0) spend.run(amount, back, tokenId);
    }
    if (heldBack) for (const [tokenId, back] of heldBack) spend.run(0, back, tokenId);
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
 * The writes of charges taken from allowances, the same as ledger-write.ts's landAllowanceRow but summed per row they
 * move: a batch of a busy account's calls updates its allowance, its account and its budget rows once each, not once per call.
 */
function prepareExtraWrites(raw: BetterSqlite3.Database) {
  const ins = raw.prepare(
    'INSERT INTO ledger (idempotency_key, token_id, model, kind, quantities, unit_prices, amount, request_id, task_id, upstream_request_id, created_at, account_id, list_amount, price_group) ' +
      'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING',
  );
  const accounts = raw.prepare('UPDATE accounts SET spent = spent + ?, held = held - ? WHERE id = ?');
  // Only an allowance still open gives up what its charges used (a closed one already gave everything back).
  const use = raw.prepare("UPDATE holds SET amount = amount - ?, updated_at = ? WHERE task_id = ? AND state = 'held' AND amount >= ?");
  const budgetsIn = cached((n: number) =>
    raw.prepare(
      `UPDATE budget_spend SET spent = spent + ?, held = held - ? WHERE (holder_id, period, period_start) IN (VALUES ${Array(n).fill('(?, ?, ?)').join(', ')})`,
    ),
  );
  return {
    insert: (r: LedgerTuple, quantities: string | null, amount: number, x: LedgerExtra): boolean =>
      ins.run(r[0], r[1], r[2], r[3], quantities, jsonTextOnce(r[5]), amount, r[7], r[8], r[9], r[10], x.accountId, x.listAmount, x.priceGroup).changes > 0,
    /**
     * The inserted rows' sums, written once per row they move; returns what the allowances gave up per token, for
     * the batch's own update of each token's spend.
     */
    land(rows: ReadonlyArray<{ tokenId: string; amount: number; x: LedgerExtra; at: number }>): Map<string, number> {
      const heldBack = new Map<string, number>();
      const byAllowance = new Map<string, { spent: number; covered: number; at: number; tokenId: string; x: LedgerExtra }>();
      for (const r of rows) {
        const a = byAllowance.get(r.x.allowance);
        if (a) {
          a.spent += r.amount;
          a.covered += r.x.covered;
        } else byAllowance.set(r.x.allowance, { spent: r.amount, covered: r.x.covered, at: r.at, tokenId: r.tokenId, x: r.x });
      }
      // The rows of one allowance all move by the same amounts: one update per table.
      for (const a of byAllowance.values()) {
        const back = a.covered > 0 && use.run(a.covered, a.at, a.x.allowance, a.covered).changes > 0 ? a.covered : 0;
        if (back > 0) heldBack.set(a.tokenId, (heldBack.get(a.tokenId) ?? 0) + back);
        if (a.x.accountId !== null) accounts.run(a.spent, back, a.x.accountId);
        // The allowance's hold made its budget rows (they are never deleted), as in ledger-write.ts.
        const keys = a.x.budgetRows;
        if (keys.length > 0) budgetsIn(keys.length).run(a.spent, back, ...keys.flat());
      }
      return heldBack;
    },
  };
}

/** One statement per shape (a budget list's length), prepared the first time. */
function cached<S>(make: (n: number) => S): (n: number) => S {
  const made = new Map<number, S>();
  return (n) => {
    let st = made.get(n);
    if (st === undefined) {
      st = make(n);
      made.set(n, st);
    }
    return st;
  };
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
