// The reconciliation report for a period, for the admin API and the CLI (core/reconcile.ts does the comparison).
import { reconcile, type ReconcileReport } from '../reconcile.ts';
import type { AdminDeps } from './deps.ts';

const DAY_MS = 86_400_000;

/** The period asked for: `from`/`to` in ms since the epoch; by default the last 24 hours. */
export function reconcilePeriod(
  from: number | undefined,
  to: number | undefined,
  now = Date.now(),
): { from: number; to: number } {
  const end = to ?? now;
  return { from: from ?? end - DAY_MS, to: end };
}

export async function reconcileReport(
  deps: Pick<AdminDeps, 'repos'>,
  from: number,
  to: number,
  reservationTtlMs?: number,
): Promise<ReconcileReport> {
  return reconcile(await deps.repos.reconcile.read(from, to), from, to, Date.now(), reservationTtlMs);
}
