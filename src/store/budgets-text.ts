// The stored budgets of a holder (tokens.budgets, accounts.budgets): a JSON array [{period, limit}], null for none.
// Every reader and writer of the column goes through these two.
import type { Budget, BudgetPeriod } from '../vocabulary/budgets.ts';
import { parseJson } from './json.ts';

export const encodeBudgets = (b: readonly Budget[] | undefined): string | null =>
  b?.length ? JSON.stringify(b) : null;

/**
 * The budgets a column holds; an entry the store cannot read is left out (the admin API only ever writes valid ones).
 */
export function decodeBudgets(text: string | null): Budget[] {
  const list = parseJson<unknown>(text);
  if (!Array.isArray(list)) return [];
  const out: Budget[] = [];
  for (const b of list as Array<{ period?: unknown; limit?: unknown }>)
    if (typeof b?.period === 'string' && typeof b.limit === 'number')
      out.push({ period: b.period as BudgetPeriod, limit: b.limit });
  return out;
}
