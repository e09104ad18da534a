// What a batch of inserted charges moves, written set-wise: one statement per table for the whole batch (an update
// joined with a VALUES list), not a few statements per charge — the same sums the SQLite batch writer writes
// (balances/sqlite-ledger-insert.ts). Each allowance's charges give up what their hold covered, from its hold and from
// `held` on every row it was placed on, only while it is open (a closed one already gave everything back).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { AllowanceRef, LedgerRow } from './ledger-row.ts';
import { LEVELS, rowsOfTarget, TOKEN, type Level } from './balances/rows.ts';

/** Sums per row moved: what landed on it (`spent`) and what left its `held`. */
type Moves = Map<string, { key: unknown[]; spent: number; back: number }>;

function moveOn(m: Moves, key: unknown[], spent: number, back: number): void {
  const k = JSON.stringify(key);
  const e = m.get(k);
  if (e === undefined) m.set(k, { key, spent, back });
  else {
    e.spent += spent;
    e.back += back;
  }
}

/**
 * A VALUES list of the moves, sorted by key (rows locked in one order): key columns as text or bigint, then spent and
 * back.
 */
function values(m: Moves, types: ReadonlyArray<'text' | 'bigint'>): RawBuilder<unknown> {
  const rows = [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
  const cast = (v: unknown, t: string) => sql`cast(${v} as ${sql.raw(t)})`;
  return sql`(values ${sql.join(rows.map((e) => sql`(${sql.join([...e.key.map((v, i) => cast(v, types[i]!)), cast(e.spent, 'bigint'), cast(e.back, 'bigint')])})`))})`;
}

/**
 * Move `spent` (and `held`, by what open allowances gave up) for the inserted `rows`: their tokens, and for charges
 * taken from allowances, the allowances' holds, accounts and budget rows. The tokens are locked already (the batch
 * read their rooms); then holds, accounts and budget rows, in the order an allowance's close takes them (holds.ts).
 */
export async function landBatch(trx: Kysely<Database>, rows: readonly LedgerRow[]): Promise<void> {
  const taken = new Map<string, { allowance: AllowanceRef; spent: number; covered: number; at: number }>();
  const tokens: Moves = new Map();
  for (const r of rows) {
    if (!r.allowance) {
      moveOn(tokens, [r.tokenId], r.charge.amount, 0);
      continue;
    }
    const l = taken.get(r.allowance.key);
    if (l === undefined)
      taken.set(r.allowance.key, {
        allowance: r.allowance,
        spent: r.charge.amount,
        covered: r.covered ?? 0,
        at: r.createdAt,
      });
    else {
      l.spent += r.charge.amount;
      l.covered += r.covered ?? 0;
      l.at = Math.max(l.at, r.createdAt);
    }
  }
  const using = [...taken.values()].filter((l) => l.covered > 0);
  const gaveUp = new Set<string>();
  if (using.length > 0) {
    const list = sql.join(
      using
        .sort((a, b) => (a.allowance.key < b.allowance.key ? -1 : 1))
        .map((l) => sql`(cast(${l.allowance.key} as text), cast(${l.covered} as bigint), cast(${l.at} as bigint))`),
    );
    const r = await sql<{
      hold_key: string;
    }>`update holds set amount = holds.amount - v.column2, updated_at = v.column3 from (values ${list}) as v
      where holds.hold_key = v.column1 and holds.state = 'held' and holds.amount >= v.column2 returning holds.hold_key`.execute(
      trx,
    );
    for (const h of r.rows) gaveUp.add(h.hold_key);
  }
  const byLevel = new Map<Level, Moves>([[TOKEN, tokens]]);
  for (const l of taken.values()) {
    const back = gaveUp.has(l.allowance.key) ? l.covered : 0;
    for (const r of rowsOfTarget(l.allowance.target)) {
      let m = byLevel.get(r.level);
      if (m === undefined) byLevel.set(r.level, (m = new Map()));
      moveOn(m, r.key as unknown[], l.spent, back);
    }
  }
  // The rows past the token first, in the levels' order; the tokens (locked already) last.
  for (const level of [...LEVELS.filter((x) => x !== TOKEN), TOKEN]) {
    const m = byLevel.get(level);
    if (m !== undefined) await moveSetWise(trx, level, m);
  }
}

/** One update of `level`'s table joined with the VALUES list of its moves (rows that move nothing left out). */
async function moveSetWise(trx: Kysely<Database>, level: Level, all: Moves): Promise<void> {
  const m = new Map([...all].filter(([, e]) => e.spent !== 0 || e.back !== 0));
  if (m.size === 0) return;
  const t = sql.table(level.table);
  const n = level.keys.length;
  const col = (i: number) => sql.ref(`v.column${i}`);
  const keys = sql.join(
    level.keys.map((c, i) => sql`${sql.ref(`${level.table}.${c}`)} = ${col(i + 1)}`),
    sql` and `,
  );
  await sql`update ${t} set spent = ${sql.ref(`${level.table}.spent`)} + ${col(n + 1)}, held = ${sql.ref(`${level.table}.held`)} - ${col(n + 2)}
    from ${values(m, level.keyTypes)} as v where ${keys}`.execute(trx);
}
