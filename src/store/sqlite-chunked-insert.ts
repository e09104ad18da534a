// A group commit's rows inserted several per statement: one INSERT … VALUES (…), (…), … run per chunk instead of one
// run per row. Each run of a prepared statement has a fixed cost that does not depend on its rows — the call into
// better-sqlite3, the result object it builds, the program's start, its cursors on the table and each index opened
// and closed, the reset — about as much as binding a row's values (docs/performance.md). A chunk is a power of two
// of rows, so a batch of n rows takes at most log2(n) + 1 runs of at most a few prepared statements.
import type BetterSqlite3 from 'better-sqlite3';

/** The most rows in one statement (its parameters stay far below SQLite's limit of 32,766). */
export const MAX_CHUNK_ROWS = 32;

/** The number of rows the next chunk takes when `left` rows are left: the largest power of two ≤ left, at most MAX_CHUNK_ROWS. */
export function chunkRows(left: number): number {
  if (left >= MAX_CHUNK_ROWS) return MAX_CHUNK_ROWS;
  let k = 1;
  while (k * 2 <= left) k *= 2;
  return k;
}

/** An INSERT of `columns` values per row, prepared once per chunk size on first use. */
export class ChunkedInsert {
  private readonly bySize = new Map<number, BetterSqlite3.Statement>();
  private readonly row: string;

  /** `head`: `INSERT INTO t (a, b, …)`; `tail`: what follows the VALUES list (an ON CONFLICT clause). */
  constructor(
    private readonly raw: BetterSqlite3.Database,
    private readonly head: string,
    columns: number,
    private readonly tail: string,
  ) {
    this.row = `(${new Array<string>(columns).fill('?').join(', ')})`;
  }

  /** Insert `rows` rows whose values are `values`, flat and in column order; returns the run's result. */
  run(rows: number, values: unknown[]): BetterSqlite3.RunResult {
    let s = this.bySize.get(rows);
    if (s === undefined) {
      s = this.raw.prepare(`${this.head} VALUES ${new Array<string>(rows).fill(this.row).join(', ')} ${this.tail}`);
      this.bySize.set(rows, s);
    }
    return s.run(...values);
  }
}
