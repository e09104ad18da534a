// Reading budgets from a request, and what a holder has spent in each budget's current period (one row per budget:
// budget_spend, kept by the meter with every hold and charge — no ledger scan).
import { isObject, type JsonObject } from '../../json/json.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { BUDGET_PERIODS, isTimeZone, periodBounds, type Budget, type BudgetPeriod } from '../../metering/periods.ts';
import type { AccountsRepo } from '../../store/repos/accounts.ts';
import { remaining } from './holders.ts';

/** `budgets`: an array of {period: day|week|month, limit} with at most one budget per period; undefined when absent. */
export function parseBudgets(o: JsonObject, key = 'budgets'): Budget[] | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (v === null) return [];
  const bad = (why: string) => new GatewayError('invalid_parameter', `${key} ${why}`, { param: key });
  if (!Array.isArray(v) || v.length > BUDGET_PERIODS.length)
    throw bad('must be an array of at most 3 budgets [{"period": "day"|"week"|"month", "limit": micro-units}]');
  const seen = new Set<string>();
  return v.map((b: unknown) => {
    if (!isObject(b) || Object.keys(b).some((k) => k !== 'period' && k !== 'limit'))
      throw bad('items must be objects {period, limit}');
    if (typeof b.period !== 'string' || !(BUDGET_PERIODS as readonly string[]).includes(b.period))
      throw bad('period must be one of day, week, month');
    if (seen.has(b.period)) throw bad(`has two budgets for one period (${b.period})`);
    seen.add(b.period);
    if (typeof b.limit !== 'number' || !Number.isSafeInteger(b.limit) || b.limit < 0)
      throw bad('limit must be a non-negative integer of micro-units');
    return { period: b.period as BudgetPeriod, limit: b.limit };
  });
}

/** `time_zone`: an IANA name (null: UTC). */
export function parseTimeZone(o: JsonObject): string | null | undefined {
  const v = o.time_zone;
  if (v === undefined) return undefined;
  if (v === null) return null;
  if (typeof v !== 'string' || v.length > 64 || !isTimeZone(v))
    throw new GatewayError(
      'invalid_parameter',
      'time_zone must be an IANA time zone name such as Europe/Paris (or null for UTC)',
      { param: 'time_zone' },
    );
  return v;
}

export interface BudgetStatus {
  period: BudgetPeriod;
  limit: number;
  /** The current period: [period_start, resets_at), ms. */
  period_start: number;
  resets_at: number;
  spent: number;
  /** Held by calls and tasks still running. */
  held: number;
  remaining: number;
}

/** Each budget of `holder` with its spend in the current period (`now`, in `tz`). */
export async function budgetStatus(
  repo: Pick<AccountsRepo, 'periodSpend'>,
  holder: string,
  budgets: Budget[],
  tz: string | null,
  now: number,
): Promise<BudgetStatus[]> {
  const periods = budgets.map((b) => ({ ...b, ...periodBounds(b.period, now, tz) }));
  const rows = await repo.periodSpend(
    holder,
    periods.map((p) => ({ period: p.period, start: p.start })),
  );
  return periods.map((p) => {
    const r = rows.get(`${p.period}:${p.start}`) ?? { spent: 0, held: 0 };
    return {
      period: p.period,
      limit: p.limit,
      period_start: p.start,
      resets_at: p.end,
      spent: r.spent,
      held: r.held,
      remaining: remaining(p.limit, r.spent, r.held),
    };
  });
}
