// Calendar periods of budgets: a day, an ISO week (from Monday) or a month, in UTC or an IANA time zone. A period
// starts at local midnight; its bounds are UTC instants (ms), so a budget row is named by its period's start.
import type { BudgetPeriod } from '../vocabulary/budgets.ts';

export { BUDGET_PERIODS, type Budget, type BudgetPeriod } from '../vocabulary/budgets.ts';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Is `tz` an IANA time zone this runtime knows? */
export function isTimeZone(tz: string): boolean {
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock fields of `at` in `tz`. */
function wall(at: number, tz: string): { y: number; m: number; d: number; h: number; min: number; s: number } {
  const p: Record<string, number> = {};
  for (const part of formatter(tz).formatToParts(at)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return { y: p.year!, m: p.month!, d: p.day!, h: p.hour!, min: p.minute!, s: p.second! };
}

/** Local time minus UTC at `at`, in ms. */
function offsetAt(at: number, tz: string): number {
  const w = wall(at, tz);
  return Date.UTC(w.y, w.m - 1, w.d, w.h, w.min, w.s) - Math.floor(at / 1000) * 1000;
}

/** The UTC instant of local midnight on (y, m, d) in `tz` (m from 1; out-of-range days roll over as Date.UTC does). */
function localMidnight(y: number, m: number, d: number, tz: string | null): number {
  const guess = Date.UTC(y, m - 1, d);
  if (tz === null) return guess;
  const first = guess - offsetAt(guess, tz);
  const second = guess - offsetAt(first, tz);
  return second;
}

/** The bounds [start, end) of the period holding `now`. */
export function periodBounds(period: BudgetPeriod, now: number, tz: string | null): { start: number; end: number } {
  const w =
    tz === null
      ? (() => {
          const t = new Date(now);
          return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
        })()
      : wall(now, tz);
  if (period === 'month') return { start: localMidnight(w.y, w.m, 1, tz), end: localMidnight(w.y, w.m + 1, 1, tz) };
  if (period === 'day') return { start: localMidnight(w.y, w.m, w.d, tz), end: localMidnight(w.y, w.m, w.d + 1, tz) };
  // ISO weeks start on Monday: getUTCDay of the local date (0 = Sunday).
  const back = (new Date(Date.UTC(w.y, w.m - 1, w.d)).getUTCDay() + 6) % 7;
  return { start: localMidnight(w.y, w.m, w.d - back, tz), end: localMidnight(w.y, w.m, w.d - back + 7, tz) };
}
