// Bills: totals per token per day, week or month (in the account's time zone: bill-calendar.ts), computed from the ledger (the authority), never from usage fields
// clients saw, with each line's models and top-ups (credits, apart from charges); as JSON or as CSV for a
// spreadsheet, a line per token or per model.
import { addAmounts } from '../../vocabulary/exact-amount.ts';
import { formatUnits } from '../../pricing/prices.ts';
import { BUDGET_PERIODS } from '../../metering/periods.ts';
import type { Meter } from '../../metering/types.ts';
import type { BillFilter, DayTotal, LedgerRepo } from '../../store/repos/ledger.ts';
import { billDates, billRuns, billZone, type BillCalendarDeps } from './bill-calendar.ts';
import type {
  BillByModelView,
  BillLine,
  CostFigures,
  BillModelLine,
  BillPeriod,
  BillTotal,
  BillView,
} from '../views.ts';

export type { BillLine, BillModelLine, BillPeriod };

/** The periods a bill is cut into: those of budgets. */
export const BILL_PERIODS: readonly BillPeriod[] = BUDGET_PERIODS;

export interface BillDeps extends BillCalendarDeps {
  readonly repos: BillCalendarDeps['repos'] & { readonly ledger: LedgerRepo };
  readonly meter: Pick<Meter, 'flush'>;
}

/** A bill's lines and the time zone of their periods (null: UTC). */
export interface Bill<L> {
  timeZone: string | null;
  lines: L[];
}

/** The figures a bill line sums, whoever it is for (a token, an account). */
export type LineFigures = Pick<BillLine, 'entries' | 'amount' | 'amount_units' | 'list_amount' | 'models' | 'credits'>;

export const emptyFigures = (): LineFigures => ({
  entries: 0,
  amount: 0,
  amount_units: '',
  list_amount: 0,
  models: {},
  credits: { entries: 0, amount: 0 },
});

/** Add charges with a recorded upstream cost to a line's (or a model's) cost figures. */
function addCost(f: Partial<CostFigures>, d: Omit<DayTotal, 'tokenId'>): void {
  if (!d.costed) return;
  const cost = d.upstreamCost ?? 0;
  f.costed_entries = (f.costed_entries ?? 0) + d.costed;
  f.upstream_cost = addAmounts(f.upstream_cost ?? 0, cost);
  f.margin = addAmounts(f.margin ?? 0, d.costedAmount ?? 0, -BigInt(cost));
}

/** Add one day's ledger totals of one model to a line. */
export function addDay(line: LineFigures & Partial<CostFigures>, d: Omit<DayTotal, 'tokenId'>): void {
  addCost(line, d);
  line.entries += d.entries;
  line.amount = addAmounts(line.amount, d.amount);
  line.list_amount = addAmounts(line.list_amount, d.listAmount);
  line.credits.entries += d.credits;
  line.credits.amount = addAmounts(line.credits.amount, d.credit);
  // A day of credit lines only (their model is '-') adds no model.
  if (d.entries === 0) return;
  const m = (line.models[d.model] ??= { entries: 0, amount: 0, amount_units: '' });
  m.entries += d.entries;
  m.amount = addAmounts(m.amount, d.amount);
  addCost(m, d);
}

/** The amounts of finished lines as exact decimal strings of units. */
export function withUnits<L extends LineFigures>(lines: L[]): L[] {
  for (const l of lines) {
    l.amount_units = formatUnits(l.amount);
    for (const m of Object.values(l.models)) m.amount_units = formatUnits(m.amount);
  }
  return lines;
}

/** Fold per-day ledger totals into bill lines per token and period. */
export function buildBill(days: DayTotal[], period: BillPeriod, names: Map<string, string>): BillLine[] {
  const lines = new Map<string, BillLine>();
  for (const d of days) {
    const dates = billDates(d.day, period);
    const key = `${d.tokenId}\u0000${dates.period_start}`;
    let line = lines.get(key);
    if (!line) {
      line = {
        token_id: d.tokenId,
        token_name: names.get(d.tokenId) ?? null,
        ...dates,
        ...emptyFigures(),
      };
      lines.set(key, line);
    }
    addDay(line, d);
  }
  const out = withUnits([...lines.values()]);
  return out.sort((a, b) =>
    a.period_start === b.period_start
      ? a.token_id.localeCompare(b.token_id)
      : a.period_start.localeCompare(b.period_start),
  );
}

/**
 * The bill lines for a filter, in the zone of its account (bill-calendar.ts) unless `zone` names one (null: UTC);
 * queued deferred charges are flushed first, so every answered call is counted.
 */
export async function billLines(
  deps: BillDeps,
  filter: BillFilter,
  period: BillPeriod,
  zone?: string | null,
): Promise<Bill<BillLine>> {
  await deps.meter.flush();
  const timeZone = zone === undefined ? await billZone(deps, filter) : zone;
  const days = await deps.repos.ledger.dayTotals(filter, await billRuns(deps, filter, timeZone));
  const names = await deps.repos.ledger.tokenNames([...new Set(days.map((d) => d.tokenId))]);
  return { timeZone, lines: buildBill(days, period, names) };
}

export function billTotal(lines: LineFigures[]): BillTotal {
  // Exact past 2^53 (exact-amount.ts): the lines of many tokens can sum beyond one balance's bound.
  const amount = addAmounts(...lines.map((l) => l.amount));
  const entries = lines.reduce((s, l) => s + l.entries, 0);
  const credit = addAmounts(...lines.map((l) => l.credits.amount));
  return { entries, amount, amount_units: formatUnits(amount), credit };
}

const UNIT = 'micro-units (1 unit = 1,000,000)';

/** The JSON bill: the lines and their total. */
export function billDocument(period: BillPeriod, { timeZone, lines }: Bill<BillLine>): BillView {
  return { object: 'bill', period, time_zone: timeZone, unit: UNIT, data: lines, total: billTotal(lines) };
}

/**
 * A bill's lines split per model, each token's top-ups of a period on a `credit` line of their own after its models.
 */
export function modelLines(lines: BillLine[]): BillModelLine[] {
  const out: BillModelLine[] = [];
  for (const l of lines) {
    const { period, period_start, first_day, last_day } = l;
    const base = { token_id: l.token_id, token_name: l.token_name, period, period_start, first_day, last_day };
    for (const model of Object.keys(l.models).sort()) {
      const m = l.models[model]!;
      const { entries, amount, amount_units, ...cost } = m;
      out.push({ ...base, kind: 'charges', model, entries, amount, amount_units, ...cost });
    }
    if (l.credits.entries > 0)
      out.push({
        ...base,
        kind: 'credit',
        model: null,
        entries: l.credits.entries,
        amount: l.credits.amount,
        amount_units: formatUnits(l.credits.amount),
      });
  }
  return out;
}

/** The JSON bill per model (`by=model`): the same total as billDocument's. */
export function billByModelDocument(period: BillPeriod, { timeZone, lines }: Bill<BillLine>): BillByModelView {
  const data = modelLines(lines);
  return { object: 'bill', period, time_zone: timeZone, by: 'model', unit: UNIT, data, total: billTotal(lines) };
}

/**
 * RFC 4180 field: quoted when it holds a comma, quote, CR or LF; quotes doubled. A text value that a
 * spreadsheet would run as a formula (starting with = + - @ TAB CR — a token name is operator input) is
 * prefixed with ' so it opens as text (OWASP "CSV injection"); numbers, signed or not, are written as they are.
 */
export function csvField(v: string | number | null): string {
  let s = v === null ? '' : String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s) && !/^[+-]?\d+(\.\d+)?$/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const BILL_CSV_HEADER = [
  'token_id',
  'token_name',
  'period',
  'period_start',
  'entries',
  'amount_micro',
  'amount_units',
  'credit_micro',
];

const csv = (rows: Array<Array<string | number | null>>): string =>
  `${rows.map((r) => r.map(csvField).join(',')).join('\r\n')}\r\n`;

export function billCsv(lines: BillLine[]): string {
  return csv([
    BILL_CSV_HEADER,
    ...lines.map((l) => [
      l.token_id,
      l.token_name,
      l.period,
      l.period_start,
      l.entries,
      l.amount,
      l.amount_units,
      l.credits.amount,
    ]),
  ]);
}

export const BILL_MODEL_CSV_HEADER = [
  'token_id',
  'token_name',
  'period',
  'period_start',
  'kind',
  'model',
  'entries',
  'amount_micro',
  'amount_units',
];

/** One row per model (and per credit line) of each token and period: modelLines. */
export function billModelCsv(lines: BillLine[]): string {
  return csv([
    BILL_MODEL_CSV_HEADER,
    ...modelLines(lines).map((l) => [
      l.token_id,
      l.token_name,
      l.period,
      l.period_start,
      l.kind,
      l.model,
      l.entries,
      l.amount,
      l.amount_units,
    ]),
  ]);
}
