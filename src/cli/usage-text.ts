// The text form of a usage answer (GET /admin/tokens/{id}/usage, /admin/accounts/{id}/usage): the period, a line per
// model, the total, then the balance and budgets as they are.
import { cell, fields, table } from './output.ts';

type Row = Record<string, unknown>;

export function usageText(v: Row): string {
  const period = (v.period ?? {}) as Row;
  const usage = (v.usage ?? {}) as { data?: Row[]; total?: Row };
  const total = usage.total ?? {};
  const rest = Object.fromEntries(Object.entries(v).filter(([k]) => !['period', 'usage', 'object'].includes(k)));
  return [
    `period: ${cell('since', period.since)} .. ${cell('until', period.until)}`,
    table(usage.data ?? [], ['model', 'entries', 'amount_units']),
    `total: ${cell('entries', total.entries)} entries, ${cell('amount', total.amount_units)} units`,
    fields(rest),
  ].join('\n');
}
