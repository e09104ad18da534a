// A holder's budget as stored and served: values only, importing nothing, so the store's budgets codec and the
// period maths (metering/periods.ts) name the same shape.
export type BudgetPeriod = 'day' | 'week' | 'month';
export const BUDGET_PERIODS: readonly BudgetPeriod[] = ['day', 'week', 'month'];

export interface Budget {
  period: BudgetPeriod;
  /** Micro-units a holder may spend in one period. */
  limit: number;
}

/**
 * Part of a time range where a local day number is an affine function of the time (metering/periods.ts dayRuns):
 * runs of 24-hour local days with one UTC offset, day = (t + offset) / 86,400,000; a day of another length (a clock
 * change) alone, offset null and every instant on day `first`. The store groups bills by these.
 */
export interface DayRun {
  since: number;
  until: number;
  /** Local day number of `since`: days from 1970-01-01 in that calendar. */
  first: number;
  offset: number | null;
}
