// The ledger's half of a group commit on SQLite: charges inserted in chunks (store/sqlite-chunked-insert.ts), each
// token's rows together, and what they spent moved onto their tokens, allowances, accounts and budget rows in the same
// transaction (their statements: sqlite-moves.ts). The SQL mirrors the dialect-neutral Kysely writes in
// metering/ledger-write.ts. The store's batch writer is handed these statements (SQLITE_LEDGER): it imports no
// metering module.
import type BetterSqlite3 from 'better-sqlite3';
import { jsonText, jsonTextOnce } from '../../json/json-text.ts';
import { siblingModule } from '../../runtime/thread-entry.ts';
import { byToken, ChunkedInsert, eachChunk } from '../../store/sqlite-chunked-insert.ts';
import type {
  AllowanceTuple,
  LedgerCut,
  LedgerInsert,
  LedgerStatements,
  LedgerTuple,
} from '../../store/sqlite-row-tuples.ts';
import { boundCharge } from './bound.ts';
import { prepareMoves, type SqliteMoves } from './sqlite-moves.ts';

/** Rows of one chunk share their token (the group's), model, kind, unit prices, task, account and price group. */
const sameShared = (a: LedgerTuple, b: LedgerTuple): boolean =>
  a[2] === b[2] &&
  a[3] === b[3] &&
  a[8] === b[8] &&
  accountOf(a) === accountOf(b) &&
  priceGroupOf(a) === priceGroupOf(b) &&
  (a[5] === b[5] || jsonTextOnce(a[5]) === jsonTextOnce(b[5]));
// A charge of no allowance has no account, list amount or price group.
const accountOf = (r: LedgerTuple): string | null => r[11]?.accountId ?? null;
const priceGroupOf = (r: LedgerTuple): string | null => (r[11] == null ? null : r[14]);

/**
 * Insert charges (a key already stored is skipped); only inserted rows move their token's `spent`, bounded by the
 * room its rows have left (token, account). Returns the inserted rows that were cut so (the meter reports them).
 */
export function prepareLedgerInsert(raw: BetterSqlite3.Database): LedgerInsert {
  // One statement shape for every charge: one of no allowance leaves the allowance's three columns null. What a
  // call's charge leaves null or the same (task, account, price group) is bound once per chunk.
  const ins = new ChunkedInsert(
    raw,
    'INSERT OR FAIL INTO ledger (idempotency_key, token_id, model, kind, quantities, unit_prices, amount, request_id, task_id, upstream_request_id, created_at, account_id, list_amount, price_group)',
    '(?, @token, @model, @kind, ?, @prices, ?, ?, @task, ?, ?, @account, ?, @group)',
    'ON CONFLICT (idempotency_key) DO NOTHING',
  );
  // A chunk's inserted rows are the last `changes` rowids its run gave out (INTEGER PRIMARY KEY: max + 1 each).
  const takeOut = raw.prepare('DELETE FROM ledger WHERE id > ? AND id <= ?');
  const moves = prepareMoves(raw);
  const extra = prepareExtraWrites(raw, moves);
  // The room each row has left (metering/balances/batch-rooms.ts), read in this write transaction and shared by the
  // batch's charges that land on it (an account's by its tokens').
  const rooms = moves.rooms;
  return (rows) => {
    const perToken = new Map<string, number>();
    rooms.clear();
    const cuts: LedgerCut[] = [];
    // Per allowance, what its inserted rows spent and what of that its hold covered.
    const taken = new Map<string, Landed>();
    const amounts: number[] = [];
    // Rooms are per token, so taking the tokens one after the other cuts each charge as the batch's order would.
    for (const group of byToken(rows, tokenOf)) {
      const tokenId = group[0]![1];
      /** The row's values, its amount bounded by the room, which it takes (as if every row before it went in). */
      const push = (values: unknown[], r: LedgerTuple): void => {
        let amount = r[6];
        let quantities = r[4];
        const flat = rowsOf(r);
        const fit = rooms.fit(tokenId, flat);
        if (amount > fit) {
          const c = boundCharge({ amount, quantities: quantities as Record<string, unknown>, unitPrices: {} }, fit);
          amount = c.amount;
          quantities = c.quantities;
        }
        rooms.take(tokenId, flat, amount);
        amounts.push(amount);
        values.push(r[0], jsonText(quantities), amount, r[7], r[9], r[10], r[11] == null ? null : r[13]);
      };
      /** An inserted row's spend, on its token and its allowance. */
      const landed = (r: LedgerTuple, amount: number): void => {
        perToken.set(tokenId, (perToken.get(tokenId) ?? 0) + amount);
        if (amount < r[6]) cuts.push([r[0], amount]);
        if (r[11] == null) return;
        const l = taken.get(r[11].allowance);
        if (l === undefined)
          taken.set(r[11].allowance, { spent: amount, covered: r[12], at: r[10], tokenId, allowance: r[11] });
        else {
          l.spent += amount;
          l.covered += r[12];
          l.at = r[10];
        }
      };
      /** Room a row took and did not use (it was not inserted): back to every row it lands on. */
      const giveBack = (r: LedgerTuple, amount: number): void => rooms.take(tokenId, rowsOf(r), -amount);
      eachChunk(group, sameShared, (i, k) => {
        const head = group[i]!;
        const shared = {
          token: tokenId,
          model: head[2],
          kind: head[3],
          prices: jsonTextOnce(head[5]),
          task: head[8],
          account: accountOf(head),
          group: priceGroupOf(head),
        };
        const values: unknown[] = [];
        amounts.length = 0;
        for (let j = i; j < i + k; j++) push(values, group[j]!);
        const run = ins.run(k, values, shared);
        if (run.changes === k) for (let j = i; j < i + k; j++) landed(group[j]!, amounts[j - i]!);
        else {
          // A key was there already (a batch tried again): only rows really inserted move `spent` and take room, so the
          // chunk's rows go back out and in again one by one, each knowing whether the rows before it went in.
          const last = Number(run.lastInsertRowid);
          if (run.changes > 0 && takeOut.run(last - run.changes, last).changes !== run.changes)
            throw new Error('ledger chunk: inserted rows not found by rowid');
          for (let j = i; j < i + k; j++) giveBack(group[j]!, amounts[j - i]!);
          for (let j = i; j < i + k; j++) {
            const r = group[j]!;
            const one: unknown[] = [];
            amounts.length = 0;
            push(one, r);
            if (ins.run(1, one, shared).changes > 0) landed(r, amounts[0]!);
            else giveBack(r, amounts[0]!);
          }
        }
      });
    }
    // What allowances gave up leaves `held` in the same update as the spend.
    const heldBack = taken.size > 0 ? extra.land(taken.values()) : null;
    for (const [tokenId, amount] of perToken) {
      const back = heldBack?.get(tokenId) ?? 0;
      heldBack?.delete(tokenId);
      if (amount > 0 || back > 0) moves.token(amount, back, tokenId);
    }
    if (heldBack) for (const [tokenId, back] of heldBack) moves.token(0, back, tokenId);
    return cuts;
  };
}

const tokenOf = (r: LedgerTuple): string => r[1];
/** A charge's rows past its token (an allowance's, flat); null: the token alone. */
const rowsOf = (r: LedgerTuple): ReadonlyArray<string | number> | null => r[11]?.rows ?? null;

/**
 * The writes of charges taken from allowances, the same as batch-spend.ts's but summed per allowance: a batch of a
 * busy account's calls updates its allowance, its account and its budget rows once each, not once per call.
 */
function prepareExtraWrites(raw: BetterSqlite3.Database, moves: SqliteMoves) {
  // Only an allowance still open gives up what its charges used (a closed one already gave everything back).
  const use = raw.prepare(
    "UPDATE holds SET amount = amount - ?, updated_at = ? WHERE hold_key = ? AND state = 'held' AND amount >= ?",
  );
  return {
    /**
     * The inserted rows' sums, written once per row they move; returns what the allowances gave up per token, for
     * the batch's own update of each token's spend.
     */
    land(allowances: Iterable<Landed>): Map<string, number> {
      const heldBack = new Map<string, number>();
      // The rows of one allowance all move by the same amounts: one update per row.
      for (const a of allowances) {
        const x = a.allowance;
        const back = a.covered > 0 && use.run(a.covered, a.at, x.allowance, a.covered).changes > 0 ? a.covered : 0;
        if (back > 0) heldBack.set(a.tokenId, (heldBack.get(a.tokenId) ?? 0) + back);
        // Its account and budget rows (the allowance's hold made the budget rows; they are never deleted).
        moves.rows(x.rows, a.spent, back);
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
  allowance: AllowanceTuple;
}

/** These statements as the store's batch writer takes them (the writer thread imports this module by its URL). */
export const SQLITE_LEDGER: LedgerStatements = {
  prepare: prepareLedgerInsert,
  moduleUrl: siblingModule(import.meta.url, 'sqlite-ledger-insert'),
};
