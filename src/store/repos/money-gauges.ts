// What the money metrics read from the store at scrape time (never on the request path): the ledger's charges per
// model and kind, and the accounts that have a limit with what they have used. Database-wide: every instance reads
// the same figures.
import { sql, type Kysely } from 'kysely';
import { sumText } from '../../vocabulary/exact-amount.ts';
import type { Database } from '../schema.ts';

export interface SpendTotal {
  model: string;
  kind: string;
  /** Micro-units, exact. */
  amount: bigint;
}

/** An account with a quota or budgets, and the spend rows of its recent budget periods. */
export interface LimitedAccount {
  id: string;
  name: string;
  quota: number | null;
  spent: number;
  held: number;
  budgets: string | null;
  timeZone: string | null;
  periods: Array<{ period: string; start: number; spent: number; held: number }>;
}

/** The longest budget period (a month) and a day's slack: older period rows are not current. */
const RECENT_PERIODS_MS = 32 * 86_400_000;

export class MoneyGaugesRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** Every charge of the ledger (credits are not charges), per model and kind. */
  async spendTotals(): Promise<SpendTotal[]> {
    const rows = await this.db
      .selectFrom('ledger')
      .where('kind', '<>', 'credit')
      .select(['model', 'kind', sumText(sql`amount`).as('amount')])
      .groupBy(['model', 'kind'])
      .execute();
    return rows.map((r) => ({ model: r.model, kind: r.kind, amount: BigInt(r.amount) }));
  }

  /** Accounts not revoked that have a quota or budgets, with their recent budget rows. */
  async limitedAccounts(now: number): Promise<LimitedAccount[]> {
    const accounts = await this.db
      .selectFrom('accounts')
      .select(['id', 'name', 'quota', 'spent', 'held', 'budgets', 'time_zone'])
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('quota', 'is not', null), eb('budgets', 'is not', null)]))
      .execute();
    if (accounts.length === 0) return [];
    const spend = await this.db
      .selectFrom('budget_spend')
      .innerJoin('accounts', 'accounts.id', 'budget_spend.holder_id')
      .select(['holder_id', 'period', 'period_start', 'budget_spend.spent', 'budget_spend.held'])
      .where('accounts.budgets', 'is not', null)
      .where('period_start', '>=', now - RECENT_PERIODS_MS)
      .execute();
    const byHolder = new Map<string, LimitedAccount['periods']>();
    for (const r of spend) {
      const list = byHolder.get(r.holder_id) ?? [];
      list.push({ period: r.period, start: Number(r.period_start), spent: Number(r.spent), held: Number(r.held) });
      byHolder.set(r.holder_id, list);
    }
    return accounts.map((a) => ({
      id: a.id,
      name: a.name,
      quota: a.quota === null ? null : Number(a.quota),
      spent: Number(a.spent),
      held: Number(a.held),
      budgets: a.budgets,
      timeZone: a.time_zone,
      periods: byHolder.get(a.id) ?? [],
    }));
  }
}
