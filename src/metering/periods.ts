// Calendar periods of budgets: a day, an ISO week (from Monday) or a month, in UTC or an IANA time zone. A period
// starts at local midnight; its bounds are UTC instants (ms), so a budget row is named by its period's start.
import type { BudgetPeriod, DayRun } from '../vocabulary/budgets.ts';

export { BUDGET_PERIODS, type Budget, type BudgetPeriod, type DayRun } from '../vocabulary/budgets.ts';

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

/** A local calendar date as a day number: days from 1970-01-01 in that calendar (Date.UTC(y, m, d) / DAY_MS). */
const DAY_MS = 86_400_000;

/** The local day number of `at` in `tz` (null: UTC). */
export function localDay(at: number, tz: string | null): number {
  if (tz === null) return Math.floor(at / DAY_MS);
  const w = wall(at, tz);
  return Date.UTC(w.y, w.m - 1, w.d) / DAY_MS;
}

/** The UTC instant of local midnight starting local day number `day` in `tz`. */
export function dayStart(day: number, tz: string | null): number {
  const d = new Date(day * DAY_MS);
  return localMidnight(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), tz);
}

/**
 * The local days [start, end) of the period holding local day `day`: a day; an ISO week from Monday; a month. The
 * calendar rule of every period (budgets, bills), whatever its zone.
 */
export function periodDays(period: BudgetPeriod, day: number): { start: number; end: number } {
  if (period === 'day') return { start: day, end: day + 1 };
  const d = new Date(day * DAY_MS);
  if (period === 'month') {
    const y = d.getUTCFullYear();
    const m = d.getUTCMonth();
    return { start: Date.UTC(y, m, 1) / DAY_MS, end: Date.UTC(y, m + 1, 1) / DAY_MS };
  }
  // getUTCDay of the local date: 0 = Sunday.
  const back = (d.getUTCDay() + 6) % 7;
  return { start: day - back, end: day - back + 7 };
}

/** The bounds [start, end) of the period holding `now`, in `tz` (null: UTC), as UTC instants (ms). */
export function periodBounds(period: BudgetPeriod, now: number, tz: string | null): { start: number; end: number } {
  const p = periodDays(period, localDay(now, tz));
  return { start: dayStart(p.start, tz), end: dayStart(p.end, tz) };
}

/** [since, until) cut into DayRuns in `tz` (null: UTC, one run). */
export function dayRuns(since: number, until: number, tz: string | null): DayRun[] {
  if (tz === null) return [{ since, until, first: Math.floor(since / DAY_MS), offset: 0 }];
  const runs: DayRun[] = [];
  let day = localDay(since, tz);
  let start = dayStart(day, tz);
  while (start < until) {
    const end = dayStart(day + 1, tz);
    const offset = end - start === DAY_MS ? day * DAY_MS - start : null;
    const last = runs[runs.length - 1];
    if (last && offset !== null && last.offset === offset) last.until = Math.min(end, until);
    else runs.push({ since: Math.max(start, since), until: Math.min(end, until), first: day, offset });
    day += 1;
    start = end;
  }
  return runs;
}
