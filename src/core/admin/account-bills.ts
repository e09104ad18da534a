// Bills per account (`GET /admin/bills?by=account`): the ledger's totals per account and period, each
// line counted against the account its ledger line names — the account of the token when it was charged, and the
// account's own top-ups. Lines that counted against no account (tokens without one, and top-ups of token quotas)
// are one line with account_id null, so the total is the whole bill's.
import type { AccountsRepo } from '../../store/repos/accounts.ts';
import type { AccountDayTotal, BillFilter } from '../../store/repos/ledger.ts';
import type { BillAccountLine, BillByAccountView, BillPeriod } from '../views.ts';
import { billDates, billRuns, billZone } from './bill-calendar.ts';
import { addDay, billTotal, csvField, emptyFigures, withUnits, type Bill, type BillDeps } from './bills.ts';

export interface AccountBillDeps extends BillDeps {
  readonly repos: BillDeps['repos'] & { readonly accounts: Pick<AccountsRepo, 'names' | 'get'> };
}

/**
 * Fold per-day ledger totals into bill lines per account and period; the lines of no account last in a
 * period.
 */
export function buildAccountBill(
  days: AccountDayTotal[],
  period: BillPeriod,
  names: Map<string, string>,
): BillAccountLine[] {
  const lines = new Map<string, BillAccountLine>();
  for (const d of days) {
    const dates = billDates(d.day, period);
    const key = `${d.accountId ?? ''}\u0000${dates.period_start}`;
    let line = lines.get(key);
    if (!line) {
      line = {
        account_id: d.accountId,
        account_name: d.accountId === null ? null : (names.get(d.accountId) ?? null),
        ...dates,
        ...emptyFigures(),
      };
      lines.set(key, line);
    }
    addDay(line, d);
  }
  const order = (l: BillAccountLine) => (l.account_id === null ? '\uffff' : l.account_id);
  return withUnits([...lines.values()]).sort(
    (a, b) => a.period_start.localeCompare(b.period_start) || order(a).localeCompare(order(b)),
  );
}

/** The lines per account for a filter; queued deferred charges are flushed first, so every answered call is counted. */
export async function accountBillLines(
  deps: AccountBillDeps,
  filter: BillFilter,
  period: BillPeriod,
): Promise<Bill<BillAccountLine>> {
  await deps.meter.flush();
  // One account's bill follows its time zone; lines of many accounts, UTC.
  const timeZone = await billZone(deps, filter);
  const days = await deps.repos.ledger.accountDayTotals(filter, await billRuns(deps, filter, timeZone));
  const names = await deps.repos.accounts.names([
    ...new Set(days.flatMap((d) => (d.accountId === null ? [] : [d.accountId]))),
  ]);
  return { timeZone, lines: buildAccountBill(days, period, names) };
}

export function accountBillDocument(period: BillPeriod, { timeZone, lines }: Bill<BillAccountLine>): BillByAccountView {
  return {
    object: 'bill',
    period,
    time_zone: timeZone,
    by: 'account',
    unit: 'micro-units (1 unit = 1,000,000)',
    data: lines,
    total: billTotal(lines),
  };
}

export const BILL_ACCOUNT_CSV_HEADER = [
  'account_id',
  'account_name',
  'period',
  'period_start',
  'entries',
  'amount_micro',
  'amount_units',
  'list_amount_micro',
  'credit_micro',
];

export function accountBillCsv(lines: BillAccountLine[]): string {
  const rows = [
    BILL_ACCOUNT_CSV_HEADER,
    ...lines.map((l) => [
      l.account_id,
      l.account_name,
      l.period,
      l.period_start,
      l.entries,
      l.amount,
      l.amount_units,
      l.list_amount,
      l.credits.amount,
    ]),
  ];
  return `${rows.map((r) => r.map(csvField).join(',')).join('\r\n')}\r\n`;
}
