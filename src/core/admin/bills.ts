// Bills: totals per token per UTC day or month, computed from the ledger (the authority), never from usage fields
// clients saw; as JSON or as CSV for a spreadsheet.
import { formatUnits } from '../../metering/prices.ts';
import type { Meter } from '../../metering/types.ts';
import type { TimeFilter } from '../../store/keyset.ts';
import { DAY_MS, type DayTotal, type LedgerRepo } from '../../store/repos/ledger.ts';

export interface BillDeps {
  readonly repos: { readonly ledger: LedgerRepo };
  readonly meter: Pick<Meter, 'flush'>;
}

export type BillPeriod = 'day' | 'month';

export interface BillLine {
  token_id: string;
  token_name: string | null;
  period: BillPeriod;
  /** UTC period label: YYYY-MM-DD or YYYY-MM. */
  period_start: string;
  entries: number;
  /** Integer micro-units. */
  amount: number;
  /** The same amount as an exact decimal string of units. */
  amount_units: string;
  models: Record<string, { entries: number; amount: number }>;
  /** Top-ups credited in the period (integer micro-units): added to the quota, not part of `amount`. */
  credits: { entries: number; amount: number };
}

function periodLabel(day: number, period: BillPeriod): string {
  const iso = new Date(day * DAY_MS).toISOString();
  return period === 'day' ? iso.slice(0, 10) : iso.slice(0, 7);
}

/** Fold per-day ledger totals into bill lines per token and UTC day or month. */
export function buildBill(days: DayTotal[], period: BillPeriod, names: Map<string, string>): BillLine[] {
  const lines = new Map<string, BillLine>();
  for (const d of days) {
    const label = periodLabel(d.day, period);
    const key = `${d.tokenId}\u0000${label}`;
    let line = lines.get(key);
    if (!line) {
      line = { token_id: d.tokenId, token_name: names.get(d.tokenId) ?? null, period, period_start: label, entries: 0, amount: 0, amount_units: '', models: {}, credits: { entries: 0, amount: 0 } };
      lines.set(key, line);
    }
    line.entries += d.entries;
    line.amount += d.amount;
    line.credits.entries += d.credits;
    line.credits.amount += d.credit;
    // A day of credit lines only (their model is '-') adds no model.
    if (d.entries === 0) continue;
    const m = (line.models[d.model] ??= { entries: 0, amount: 0 });
    m.entries += d.entries;
    m.amount += d.amount;
  }
  const out = [...lines.values()];
  for (const l of out) l.amount_units = formatUnits(l.amount);
  return out.sort((a, b) => (a.period_start === b.period_start ? a.token_id.localeCompare(b.token_id) : a.period_start.localeCompare(b.period_start)));
}

/** The bill lines for a filter; queued deferred charges are flushed first, so every answered call is counted. */
export async function billLines(deps: BillDeps, filter: TimeFilter, period: BillPeriod): Promise<BillLine[]> {
  await deps.meter.flush();
  const days = await deps.repos.ledger.dayTotals(filter);
  const names = await deps.repos.ledger.tokenNames([...new Set(days.map((d) => d.tokenId))]);
  return buildBill(days, period, names);
}

/** The JSON bill: the lines and their total. */
export function billDocument(period: BillPeriod, lines: BillLine[]) {
  const amount = lines.reduce((s, l) => s + l.amount, 0);
  const entries = lines.reduce((s, l) => s + l.entries, 0);
  const credit = lines.reduce((s, l) => s + l.credits.amount, 0);
  return { object: 'bill', period, unit: 'micro-units (1 unit = 1,000,000)', data: lines, total: { entries, amount, amount_units: formatUnits(amount), credit } };
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

export const BILL_CSV_HEADER = ['token_id', 'token_name', 'period', 'period_start', 'entries', 'amount_micro', 'amount_units', 'credit_micro'];

export function billCsv(lines: BillLine[]): string {
  const rows = [BILL_CSV_HEADER, ...lines.map((l) => [l.token_id, l.token_name, l.period, l.period_start, l.entries, l.amount, l.amount_units, l.credits.amount])];
  return rows.map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}
