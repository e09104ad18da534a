// The SQLite batch writer's statements for the rows money lands on (balances/sqlite-ledger-insert.ts), built from the
// levels of rows.ts and prepared once: one update per level moves `spent` up and `held` down on one row by its key,
// and one select per level whose room a batch reads (batch-rooms.ts) gives a row's spent + held.
import type BetterSqlite3 from 'better-sqlite3';
import { BatchRooms, ROOM_LEVELS } from './batch-rooms.ts';
import { LEVEL_BY_NAME, LEVELS, type Level } from './rows.ts';

export interface SqliteMoves {
  /** Move the token's row. */
  token(spent: number, back: number, tokenId: string): void;
  /** Move every row of a flat list (rows.ts flatRows) by the same amounts. */
  rows(flat: ReadonlyArray<string | number>, spent: number, back: number): void;
  /** The rooms of a batch, each row's read when first met (clear them for the next batch). */
  readonly rooms: BatchRooms;
}

export function prepareMoves(raw: BetterSqlite3.Database): SqliteMoves {
  const sqlOf = (l: Level): string =>
    `UPDATE ${l.table} SET spent = spent + ?, held = held - ? WHERE ${l.keys.map((c) => `${c} = ?`).join(' AND ')}`;
  const statements = new Map(LEVELS.map((l) => [l.name, raw.prepare(sqlOf(l))]));
  const token = statements.get('token')!;
  const used = new Map(
    ROOM_LEVELS.map((l) => [
      l,
      raw.prepare<[string], { used: number }>(`SELECT spent + held AS used FROM ${l.table} WHERE ${l.keys[0]} = ?`),
    ]),
  );
  return {
    rooms: new BatchRooms((level, id) => {
      const u = used.get(level)!.get(id);
      return u === undefined ? undefined : Number(u.used);
    }),
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
