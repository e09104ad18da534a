// The hold rows of the meter: a hold (a task's estimate, or a call's reservation) moves `held` on the token — and on
// its account and the budget rows of the current periods when it has them — by compare-and-set in one transaction,
// so it lands only where it fits. Its close gives those amounts back, and a charge moves `spent` on the same rows.
import { sql, type Kysely } from 'kysely';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Database } from '../store/schema.ts';
import type { Billing } from './billing.ts';
import { holdOn, leftOn, moveOn } from './balances/moves.ts';
import { limitRefusal } from './refusal.ts';
import {
  BUDGET,
  rowsOf,
  rowsOfTarget,
  targetOfRows,
  TOKEN,
  type BalanceRow,
  type BudgetRowKey,
  type HoldTarget,
  type PeriodRule,
} from './balances/rows.ts';

export type { HoldTarget } from './balances/rows.ts';

export interface HoldSpec {
  key: string;
  tokenId: string;
  amount: number;
  /** Charges queued for this token and not yet committed: counted against its quota. */
  pending: number;
  billing: Billing | null;
  now: number;
  refusal: string;
  /** A task's prices fixed at its creation (price-terms.ts), JSON: its settlement charges at them. */
  terms?: string;
  /** The budget periods' calendars (balances/rows.ts; absent: day, week, month). */
  periods?: Readonly<Record<string, PeriodRule>>;
}

/** Why a hold does not fit on `r`: the limit, the estimate and what is left (refusal.ts). */
async function refusalOn(trx: Kysely<Database>, r: BalanceRow, s: HoldSpec): Promise<GatewayError> {
  const use = await leftOn(trx, r, s.pending);
  if (use === null) return new GatewayError('insufficient_quota', s.refusal);
  const holder = String(r.key[0]);
  const budget = r.level === BUDGET;
  return limitRefusal(
    {
      holderKind: r.level === TOKEN || (budget && !holder.startsWith('acc_')) ? 'token' : 'account',
      holderId: holder,
      limitKind: budget ? 'budget' : 'quota',
      period: budget ? String(r.key[1]) : null,
      periodStart: budget ? Number(r.key[2]) : null,
      periodEnd: budget ? r.end : null,
      limit: use.limit,
      estimate: s.amount,
      left: use.left,
      subject: s.key.startsWith(RESERVATION_PREFIX) ? 'call' : 'task',
    },
    s.now,
  );
}

/**
 * Insert the hold row and move `held` by compare-and-set on every row it reserves against (balances/); the first
 * that does not fit throws (the caller's transaction rolls back the rest). False when a hold with this key already
 * exists.
 */
export async function placeHold(trx: Kysely<Database>, s: HoldSpec): Promise<boolean> {
  const b = s.billing;
  const rows = rowsOf(s.tokenId, b, s.now, s.periods);
  const budgetRows = b ? targetOfRows(rows, b.priceGroup).budgetRows : [];
  const ins = await trx
    .insertInto('holds')
    .values({
      hold_key: s.key,
      token_id: s.tokenId,
      amount: s.amount,
      state: 'held',
      created_at: s.now,
      updated_at: s.now,
      ...(b
        ? {
            account_id: b.accountId,
            price_group: b.priceGroup,
            budget_rows: budgetRows.length ? JSON.stringify(budgetRows) : null,
          }
        : {}),
      ...(s.terms ? { price_terms: s.terms } : {}),
    })
    .onConflict((oc) => oc.column('hold_key').doNothing())
    .executeTakeFirst();
  if (Number(ins.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
  const refused = await holdOn(trx, rows, s.amount, s.pending);
  // Rolled back with the insert.
  if (refused !== null) throw await refusalOn(trx, refused, s);
  return true;
}

type HoldRow = {
  amount: number | string;
  token_id: string;
  account_id: string | null;
  price_group: string | null;
  budget_rows: string | null;
};

function targetOf(h: HoldRow): HoldTarget {
  return {
    tokenId: h.token_id,
    accountId: h.account_id,
    priceGroup: h.price_group,
    budgetRows: h.budget_rows ? (JSON.parse(h.budget_rows) as BudgetRowKey[]) : [],
  };
}

/** Where the hold under `key` reserved (null: no hold). */
export async function holdTarget(trx: Kysely<Database>, key: string): Promise<HoldTarget | null> {
  const h = await trx
    .selectFrom('holds')
    .select(['amount', 'token_id', 'account_id', 'price_group', 'budget_rows'])
    .where('hold_key', '=', key)
    .executeTakeFirst();
  return h ? targetOf(h) : null;
}

/** A charge of `amount` lands on the token (and the account and budget rows of its hold). */
export function addSpent(trx: Kysely<Database>, t: HoldTarget, amount: number): Promise<void> {
  return moveOn(trx, rowsOfTarget(t), 'spent', amount);
}

/**
 * Decide the outcome of a hold: CAS its row held → `to`. A key without a hold gets a zero-amount row first, so the
 * CAS (and its one-outcome guarantee) applies to every task. Returns where the hold reserved, its held amount given
 * back and a task's price terms, or null if the outcome was already decided.
 */
export async function closeHold(
  trx: Kysely<Database>,
  key: string,
  tokenId: string,
  to: 'settled' | 'released',
  now: number,
): Promise<(HoldTarget & { amount: number; terms: string | null }) | null> {
  // A batch of charges locks its tokens first, then the allowances it uses (ledger-write.ts): an allowance closes in
  // that order too, or the two would deadlock on PostgreSQL.
  if (key.startsWith(ALLOWANCE_PREFIX))
    await trx.updateTable('tokens').set({ spent: sql`spent` }).where('id', '=', tokenId).execute();
  await trx
    .insertInto('holds')
    .values({ hold_key: key, token_id: tokenId, amount: 0, state: 'held', created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('hold_key').doNothing())
    .execute();
  const closed = await trx
    .updateTable('holds')
    .set({ state: to, updated_at: now })
    .where('hold_key', '=', key)
    .where('state', '=', 'held')
    .returning(['amount', 'token_id', 'account_id', 'price_group', 'budget_rows', 'price_terms'])
    .executeTakeFirst();
  if (!closed) return null;
  const t = targetOf(closed);
  const amount = Number(closed.amount);
  if (amount > 0) await moveOn(trx, rowsOfTarget(t), 'held', -amount);
  return { ...t, amount, terms: closed.price_terms };
}

/** Reservations of calls answered at once are keyed by their request id (tasks by task_… / video_… ids). */
export const RESERVATION_PREFIX = 'req_';
/** The key prefix of allowance holds (allowances.ts). */
export const ALLOWANCE_PREFIX = 'lease_';

export async function holdStateOf(
  db: Kysely<Database>,
  taskId: string,
): Promise<'held' | 'settled' | 'released' | null> {
  const h = await db.selectFrom('holds').select('state').where('hold_key', '=', taskId).executeTakeFirst();
  return h ? (h.state as 'held' | 'settled' | 'released') : null;
}
