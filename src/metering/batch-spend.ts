// What a batch of inserted charges moves, written set-wise: one statement per table for the whole batch (an update
// joined with a VALUES list), not a few statements per charge — the same sums the SQLite batch writer writes
// (store/sqlite-ledger-insert.ts). Each allowance's charges give up what their hold covered, from its hold and from
// `held` on every row it was placed on, only while it is open (a closed one already gave everything back).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { AllowanceLease, LedgerRow } from './ledger-row.ts';

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

/** A VALUES list of the moves, sorted by key (rows locked in one order): key columns as text or bigint, then spent and back. */
function values(m: Moves, types: Array<'text' | 'bigint'>): RawBuilder<unknown> {
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
  const leases = new Map<string, { lease: AllowanceLease; spent: number; covered: number; at: number }>();
  const tokens: Moves = new Map();
  for (const r of rows) {
    if (!r.allowance) {
      moveOn(tokens, [r.tokenId], r.charge.amount, 0);
      continue;
    }
    const l = leases.get(r.allowance.key);
    if (l === undefined) leases.set(r.allowance.key, { lease: r.allowance, spent: r.charge.amount, covered: r.covered ?? 0, at: r.createdAt });
    else {
      l.spent += r.charge.amount;
      l.covered += r.covered ?? 0;
      l.at = Math.max(l.at, r.createdAt);
    }
  }
  const using = [...leases.values()].filter((l) => l.covered > 0);
  const gaveUp = new Set<string>();
  if (using.length > 0) {
    const list = sql.join(
      using
        .sort((a, b) => (a.lease.key < b.lease.key ? -1 : 1))
        .map((l) => sql`(cast(${l.lease.key} as text), cast(${l.covered} as bigint), cast(${l.at} as bigint))`),
    );
    const r = await sql<{ task_id: string }>`update holds set amount = holds.amount - v.column2, updated_at = v.column3 from (values ${list}) as v
      where holds.task_id = v.column1 and holds.state = 'held' and holds.amount >= v.column2 returning holds.task_id`.execute(trx);
    for (const h of r.rows) gaveUp.add(h.task_id);
  }
  const accounts: Moves = new Map();
  const budgets: Moves = new Map();
  for (const l of leases.values()) {
    const back = gaveUp.has(l.lease.key) ? l.covered : 0;
    const t = l.lease.target;
    moveOn(tokens, [t.tokenId], l.spent, back);
    if (t.accountId !== null) moveOn(accounts, [t.accountId], l.spent, back);
    for (const [holder, period, start] of t.budgetRows) moveOn(budgets, [holder, period, start], l.spent, back);
  }
  const moved = (m: Moves) => new Map([...m].filter(([, e]) => e.spent !== 0 || e.back !== 0));
  const acc = moved(accounts);
  if (acc.size > 0)
    await sql`update accounts set spent = accounts.spent + v.column2, held = accounts.held - v.column3 from ${values(acc, ['text'])} as v
      where accounts.id = v.column1`.execute(trx);
  const bud = moved(budgets);
  if (bud.size > 0)
    await sql`update budget_spend set spent = budget_spend.spent + v.column4, held = budget_spend.held - v.column5 from ${values(bud, ['text', 'text', 'bigint'])} as v
      where budget_spend.holder_id = v.column1 and budget_spend.period = v.column2 and budget_spend.period_start = v.column3`.execute(trx);
  const tok = moved(tokens);
  if (tok.size > 0)
    await sql`update tokens set spent = tokens.spent + v.column2, held = tokens.held - v.column3 from ${values(tok, ['text'])} as v
      where tokens.id = v.column1`.execute(trx);
}
