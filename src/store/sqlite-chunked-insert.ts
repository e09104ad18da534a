// A group commit's rows inserted several per statement: one INSERT … VALUES (…), (…), … run per chunk instead of one
// run per row. Each run of a prepared statement has a fixed cost that does not depend on its rows — the call into
// better-sqlite3, the result object it builds, the program's start, its cursors on the table and each index opened
// and closed, the reset. And a string bound to a statement is copied twice (better-sqlite3 into UTF-8, SQLite again):
// the columns a chunk's rows share (the token, the model, the route) are bound once per chunk, as named parameters
// every row of the statement names, not once per row (docs/performance.md). A chunk is every row (up to 32) of a run
// of rows that share those values: one statement is prepared per chunk size met, so a batch of such rows takes one
// run per 32.
// The statements are INSERT OR FAIL: a statement of several rows that could abort half-way keeps a journal of every
// page it changes so that it can undo its own rows; with FAIL a refused row still fails the statement, and the batch's
// transaction, which is rolled back whole, is what undoes the rest.
import type BetterSqlite3 from 'better-sqlite3';

/** The most rows in one statement (its parameters stay far below SQLite's limit of 32,766). */
export const MAX_CHUNK_ROWS = 32;

/**
 * An INSERT whose row is `row` (e.g. `(?, @token, ?)`: `?` a value of each row, `@name` one value for the whole
 * chunk), prepared once per chunk size on first use (at most MAX_CHUNK_ROWS statements).
 */
export class ChunkedInsert {
  private readonly bySize = new Map<number, BetterSqlite3.Statement>();

  /** `head`: `INSERT INTO t (a, b, …)`; `tail`: what follows the VALUES list (an ON CONFLICT clause). */
  constructor(
    private readonly raw: BetterSqlite3.Database,
    private readonly head: string,
    private readonly row: string,
    private readonly tail: string,
  ) {}

  /** Insert `rows` rows: `values` holds each row's `?` values, flat and in order; `shared` the chunk's named ones. */
  run(rows: number, values: unknown[], shared: Record<string, unknown>): BetterSqlite3.RunResult {
    let s = this.bySize.get(rows);
    if (s === undefined) {
      s = this.raw.prepare(`${this.head} VALUES ${new Array<string>(rows).fill(this.row).join(', ')} ${this.tail}`);
      this.bySize.set(rows, s);
    }
    return s.run(...values, shared);
  }
}

/**
 * `rows` in groups of one token each (`tokenOf`), in the order each token first appears; a token's rows keep their
 * order. A batch of one token's rows (a busy client) is handed back as it is.
 */
export function byToken<T>(rows: T[], tokenOf: (r: T) => string | null): T[][] {
  const first = tokenOf(rows[0]!);
  let i = 1;
  while (i < rows.length && tokenOf(rows[i]!) === first) i++;
  if (i === rows.length) return [rows];
  const groups = new Map<string | null, T[]>();
  for (const r of rows) {
    const t = tokenOf(r);
    const g = groups.get(t);
    if (g === undefined) groups.set(t, [r]);
    else g.push(r);
  }
  return [...groups.values()];
}

/**
 * How many of `rows`, from `start`, form the next chunk: the rows that `same` says share the first one's values, at
 * most MAX_CHUNK_ROWS.
 */
function nextChunk<T>(rows: readonly T[], start: number, same: (a: T, b: T) => boolean): number {
  const head = rows[start]!;
  let end = start + 1;
  while (end < rows.length && end - start < MAX_CHUNK_ROWS && same(head, rows[end]!)) end++;
  return end - start;
}

/** `rows` (one token's) cut into chunks, in order: `run(start, k)` for the k rows from `start` that form each one. */
export function eachChunk<T>(
  rows: readonly T[],
  same: (a: T, b: T) => boolean,
  run: (start: number, k: number) => void,
): void {
  for (let i = 0; i < rows.length; ) {
    const k = nextChunk(rows, i, same);
    run(i, k);
    i += k;
  }
}
