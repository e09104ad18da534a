// A holder's budget as stored and served: values only, importing nothing, so the store's budgets codec and the
// period maths (metering/periods.ts) name the same shape.
export type BudgetPeriod = 'day' | 'week' | 'month';
export const BUDGET_PERIODS: readonly BudgetPeriod[] = ['day', 'week', 'month'];

export interface Budget {
  period: BudgetPeriod;
  /** Micro-units a holder may spend in one period. */
  limit: number;
}
