// The SQLite batch writer's statements for the rows money lands on (store/sqlite-ledger-insert.ts), built from the
// levels of rows.ts and prepared once: one update per level moves `spent` up and `held` down on one row by its key.
import type BetterSqlite3 from 'better-sqlite3';
import { LEVEL_BY_NAME, LEVELS, type Level } from './rows.ts';

export interface SqliteMoves {
  /** Move the token's row. */
  token(spent: number, back: number, tokenId: string): void;
  /** Move every row of a flat list (rows.ts flatRows) by the same amounts. */
  rows(flat: ReadonlyArray<string | number>, spent: number, back: number): void;
}

export function prepareMoves(raw: BetterSqlite3.Database): SqliteMoves {
  const sqlOf = (l: Level): string => `UPDATE ${l.table} SET spent = spent + ?, held = held - ? WHERE ${l.keys.map((c) => `${c} = ?`).join(' AND ')}`;
  const statements = new Map(LEVELS.map((l) => [l.name, raw.prepare(sqlOf(l))]));
  const token = statements.get('token')!;
  return {
    token: (spent, back, tokenId) => void token.run(spent, back, tokenId),
    rows(flat, spent, back) {
      for (let i = 0; i < flat.length; ) {
        const name = flat[i] as Level['name'];
        const n = LEVEL_BY_NAME[name].keys.length;
        statements.get(name)!.run(spent, back, ...flat.slice(i + 1, i + 1 + n));
        i += 1 + n;
      }
    },
  };
}
