// The reconciliation report's verdict: each kind of finding by name, and what is wrong in a report, one line each
// (empty: clean). Plain data, apart from the page, so a test reads it without a browser.
import { units } from '../../format.ts';
import type { ReconcileReport } from '../../../../src/core/reconcile.ts';

export type Key =
  | 'mismatches'
  | 'open_holds'
  | 'tasks_charged_without_success'
  | 'successes_without_charge'
  | 'lost_submits'
  | 'upstream_disagreements';

/** Each kind of finding and its name (the verdict gives its count after it: "Open holds: 2"). */
export const FINDINGS: ReadonlyArray<readonly [Key, string]> = [
  ['mismatches', 'mismatches between a charge and its stored usage'],
  ['open_holds', 'open holds'],
  ['tasks_charged_without_success', 'tasks charged without success'],
  ['successes_without_charge', 'successes without charge'],
  ['lost_submits', 'lost submits'],
  ['upstream_disagreements', 'upstream disagreements'],
];

export const capital = (s: string): string => `${s[0]!.toUpperCase()}${s.slice(1)}`;

/** What is wrong in the report, one line each; empty: clean. */
export function problems(r: ReconcileReport): string[] {
  const out: string[] = [];
  if (String(r.difference) !== '0')
    out.push(`The ledger and the stored upstream usage differ by ${units(r.difference)} units`);
  for (const [key, label] of FINDINGS) if (r[key].length > 0) out.push(`${capital(label)}: ${r[key].length}`);
  return out;
}
