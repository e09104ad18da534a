// A bill's calendar: the time zone its periods follow (its account's, as the account's budgets do) and each period's
// label and days, by the one calendar rule budgets use (metering/periods.ts periodDays).
import { dayRuns, periodDays, type DayRun } from '../../metering/periods.ts';
import type { AccountsRepo } from '../../store/repos/accounts.ts';
import { DAY_MS, type BillFilter, type LedgerRepo } from '../../store/repos/ledger.ts';
import type { TokensRepo } from '../../store/repos/tokens.ts';
import type { BillDates, BillPeriod } from '../views.ts';

export interface BillCalendarDeps {
  readonly repos: {
    readonly ledger: Pick<LedgerRepo, 'span'>;
    readonly accounts: Pick<AccountsRepo, 'get'>;
    readonly tokens: Pick<TokensRepo, 'get'>;
  };
}

/** The zone a bill follows: its account's (account_id), else its token's account's (token_id); else UTC (null). */
export async function billZone(deps: BillCalendarDeps, filter: BillFilter): Promise<string | null> {
  const accountId =
    filter.accountId ??
    (filter.tokenId === undefined ? null : (await deps.repos.tokens.get(filter.tokenId))?.accountId);
  if (!accountId) return null;
  return (await deps.repos.accounts.get(accountId))?.timeZone ?? null;
}

/** How the ledger is grouped into the days of a bill in `tz`: undefined in UTC (the epoch's days, one query). */
export async function billRuns(
  deps: BillCalendarDeps,
  filter: BillFilter,
  tz: string | null,
): Promise<DayRun[] | undefined> {
  if (tz === null) return undefined;
  const span = await deps.repos.ledger.span(filter);
  return span === null ? [] : dayRuns(span.since, span.until, tz);
}

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The period holding day number `day` of the bill's calendar: its label, first and last days. */
export function billDates(day: number, period: BillPeriod): BillDates {
  const p = periodDays(period, day);
  const first = isoDay(p.start);
  return {
    period,
    period_start: period === 'month' ? first.slice(0, 7) : first,
    first_day: first,
    last_day: isoDay(p.end - 1),
  };
}
