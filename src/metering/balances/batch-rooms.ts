// The balance bound (balance-bound.ts) as the two batch writers apply it: the room each row a queued charge lands on
// has left, taken charge by charge in the batch's order. A charge's rows are its token and, past it, its allowance's
// rows flat (rows.ts flatRows): one loop over them, for every level whose room is read (rows.ts partOfHolder).
// The rooms are read by the Kysely batch (moves.ts readRooms) or the SQLite one's statements (sqlite-moves.ts).
import { MAX_BALANCE, roomLeft } from './bound.ts';
import { LEVEL_BY_NAME, LEVELS, TOKEN, type Level } from './rows.ts';

/** The levels whose room a batch reads, each keyed by one column. */
export const ROOM_LEVELS: readonly Level[] = LEVELS.filter((l) => !l.partOfHolder);
for (const l of ROOM_LEVELS)
  if (l.keys.length !== 1) throw new Error(`level ${l.name}: a batch reads rooms by one key column`);

/** A row's spent + held, read in the batch's write transaction (undefined: no such row, it has the whole bound). */
export type ReadUsed = (level: Level, id: string) => number | undefined;

/** The rooms one batch's charges take, per level and row key; a row not met yet is read by `read` when first met. */
export class BatchRooms {
  private readonly left = new Map<Level, Map<string, number>>(ROOM_LEVELS.map((l) => [l, new Map()]));

  constructor(private readonly read: ReadUsed) {}

  /** Forget the rooms read (the next batch reads them again, in its own transaction). */
  clear(): void {
    for (const m of this.left.values()) m.clear();
  }

  /** Set a row's room from its spent + held. */
  setUsed(level: Level, id: string, used: number): void {
    this.left.get(level)!.set(id, roomLeft(used));
  }

  /** The least room on the rows of a charge of `tokenId` (`flat`: its rows past the token; null: none). */
  fit(tokenId: string, flat: ReadonlyArray<string | number> | null): number {
    return this.walk(tokenId, flat, 0);
  }

  /** Take `amount` from the room of every row of the charge (a negative amount gives it back). */
  take(tokenId: string, flat: ReadonlyArray<string | number> | null, amount: number): void {
    this.walk(tokenId, flat, amount);
  }

  /** One loop over the charge's rows: the least room among them, each moved down by `by`. */
  private walk(tokenId: string, flat: ReadonlyArray<string | number> | null, by: number): number {
    let fit = this.room(TOKEN, tokenId, by);
    if (flat !== null)
      for (let i = 0; i < flat.length; ) {
        const level = LEVEL_BY_NAME[flat[i] as Level['name']];
        if (!level.partOfHolder) fit = Math.min(fit, this.room(level, flat[i + 1] as string, by));
        i += 1 + level.keys.length;
      }
    return fit;
  }

  /** The row's room before `by` is taken from it. */
  private room(level: Level, id: string, by: number): number {
    const m = this.left.get(level)!;
    let r = m.get(id);
    if (r === undefined) {
      const used = this.read(level, id);
      r = used === undefined ? MAX_BALANCE : roomLeft(used);
      if (by === 0) m.set(id, r);
    }
    if (by !== 0) m.set(id, r - by);
    return r;
  }
}
