// The walks over a call's rows (rows.ts), each one loop: hold (compare-and-set), move (spend, release), and the
// room they have left. The compare-and-set and the balance bound are written here once, for every level.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { MAX_BALANCE, roomLeft } from './bound.ts';
import { remaining } from './remaining.ts';
import { BatchRooms, ROOM_LEVELS } from './batch-rooms.ts';
import type { BalanceRow, Level } from './rows.ts';

const where = (r: BalanceRow): RawBuilder<unknown> =>
  sql.join(
    r.level.keys.map((c, i) => sql`${sql.ref(c)} = ${r.key[i]}`),
    sql` and `,
  );

/**
 * Does `extra` more fit on the row: within its limit (its quota when it has one, else the budget's) and within the
 * balance bound (balance-bound.ts), quota or not.
 */
function fits(r: BalanceRow, extra: number): RawBuilder<boolean> {
  const used = sql`spent + held + ${extra}`;
  const limit = r.level.quotaColumn ? sql`(quota is null or ${used} <= quota)` : sql`${used} <= ${r.limit}`;
  return sql<boolean>`${limit} and ${used} <= ${MAX_BALANCE}`;
}

/**
 * Move `held` up by `amount` on every row, each by compare-and-set: `refused` names the first row it does not fit
 * on (the caller throws it; its transaction rolls back the rest). `pending`: the token's queued charges.
 */
export async function holdOn(
  trx: Kysely<Database>,
  rows: readonly BalanceRow[],
  amount: number,
  pending: number,
): Promise<BalanceRow | null> {
  for (const r of rows) {
    const t = sql.table(r.level.table);
    if (r.level.madeOnHold)
      await sql`insert into ${t} (${sql.join(r.level.keys.map((c) => sql.ref(c)))}) values (${sql.join(r.key)}) on conflict do nothing`.execute(
        trx,
      );
    const u =
      await sql`update ${t} set held = held + ${amount} where ${where(r)} and ${fits(r, r.level.countsQueued ? amount + pending : amount)}`.execute(
        trx,
      );
    if (Number(u.numAffectedRows ?? 0n) === 0) return r;
  }
  return null;
}

/** Move `column` by `amount` on every row. */
export async function moveOn(
  trx: Kysely<Database>,
  rows: readonly BalanceRow[],
  column: 'held' | 'spent',
  amount: number,
): Promise<void> {
  const c = sql.ref(column);
  for (const r of rows)
    await sql`update ${sql.table(r.level.table)} set ${c} = ${c} + ${amount} where ${where(r)}`.execute(trx);
}

/** What the rows have used (spent + held) and their limits; a row not found is left out. */
interface Used {
  row: BalanceRow;
  used: number;
  limit: number | null;
}

/**
 * Each row's use, read under a row lock when `lock` (a no-op update takes it on PostgreSQL, and SQLite's write lock
 * is held): no other transaction moves these rows until this one ends.
 */
async function usedOn(trx: Kysely<Database>, rows: readonly BalanceRow[], lock: boolean): Promise<Used[]> {
  const out: Used[] = [];
  for (const r of rows) {
    const t = sql.table(r.level.table);
    const limit = r.level.quotaColumn ? sql`quota` : sql`null`;
    const q = lock
      ? sql<{
          used: number | string;
          q: number | string | null;
        }>`update ${t} set spent = spent where ${where(r)} returning spent + held as used, ${limit} as q`
      : sql<{
          used: number | string;
          q: number | string | null;
        }>`select spent + held as used, ${limit} as q from ${t} where ${where(r)}`;
    const found = (await q.execute(trx)).rows[0];
    if (found)
      out.push({
        row: r,
        used: Number(found.used),
        limit: r.level.quotaColumn ? (found.q === null ? null : Number(found.q)) : r.limit,
      });
  }
  return out;
}

/**
 * What `r`'s limit leaves (remaining.ts; the token's queued charges counted on its row) and the limit itself; null
 * when the row is not found. Read without a lock: for a refusal's words.
 */
export async function leftOn(
  trx: Kysely<Database>,
  r: BalanceRow,
  pending: number,
): Promise<{ left: number; limit: number | null } | null> {
  const u = (await usedOn(trx, [r], false))[0];
  if (u === undefined) return r.level.madeOnHold && r.limit !== null ? { left: r.limit, limit: r.limit } : null;
  return { left: left(u.limit, u.used, r.level.countsQueued ? pending : 0), limit: u.limit };
}

/** The room the balance bound leaves on every row a charge lands on, read under a row lock: the least of them. */
export async function boundRoom(trx: Kysely<Database>, rows: readonly BalanceRow[]): Promise<number> {
  let room = MAX_BALANCE;
  for (const u of await usedOn(trx, rows, true)) room = Math.min(room, roomLeft(u.used));
  return room;
}

/** What the limit leaves (remaining.ts), the limit bounded (none: the balance bound); `extra` counted as held. */
const left = (limit: number | null, used: number, extra: number): number =>
  remaining(Math.min(limit ?? MAX_BALANCE, MAX_BALANCE), used, extra);

/**
 * The room the rows' limits leave (quotas and budgets, spent and held counted, and the token's queued charges):
 * the least of them. A row a hold makes (a budget period's) has nothing used while not found; another row not
 * found leaves no room, or (`missing: 'no-limit'`) sets no limit.
 */
export async function limitRoom(
  trx: Kysely<Database>,
  rows: readonly BalanceRow[],
  pending: number,
  missing: 'no-room' | 'no-limit' = 'no-room',
): Promise<number> {
  const found = await usedOn(trx, rows, false);
  let room = MAX_BALANCE;
  let i = 0;
  for (const r of rows) {
    const u = found[i]?.row === r ? found[i++] : undefined;
    if (u === undefined && !r.level.madeOnHold) {
      if (missing === 'no-room') return 0;
      continue;
    }
    const limit = u ? u.limit : r.limit;
    room = Math.min(room, left(limit, u?.used ?? 0, r.level.countsQueued ? pending : 0));
  }
  return room;
}

/** A charge as the Kysely batch reads its rows: its token and its allowance's rows flat (null: the token alone). */
export interface ChargeRows {
  readonly tokenId: string;
  readonly flat: ReadonlyArray<string | number> | null;
}

/**
 * The rooms of every row `charges` land on, read under a row lock (the no-op update takes it on PostgreSQL, and
 * SQLite's write lock), level by level in the order every write locks them (rows.ts LEVELS): no other transaction
 * moves these rows until this one ends.
 */
export async function readRooms(trx: Kysely<Database>, charges: Iterable<ChargeRows>): Promise<BatchRooms> {
  const wanted = new Map<Level, string[]>(ROOM_LEVELS.map((l) => [l, []]));
  // A first walk names the rows (each once: a row met is kept with the whole bound until read below).
  const rooms = new BatchRooms((level, id) => void wanted.get(level)!.push(id));
  for (const c of charges) rooms.fit(c.tokenId, c.flat);
  for (const [level, ids] of wanted) {
    if (ids.length === 0) continue;
    const key = sql.ref(level.keys[0]!);
    const r = await sql<{ id: string; used: number | string }>`update ${sql.table(level.table)} set spent = spent
      where ${key} in (${sql.join(ids)}) returning ${key} as id, spent + held as used`.execute(trx);
    for (const u of r.rows) rooms.setUsed(level, u.id, Number(u.used));
  }
  return rooms;
}
