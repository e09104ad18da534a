// The reconciliation report for a period, for the admin API and the CLI (core/reconcile.ts does the comparison).
import { reconcile, type ReconcileReport } from '../reconcile.ts';
import type { AdminDeps } from './deps.ts';

const DAY_MS = 86_400_000;

/** The period asked for: `since`/`until` in ms since the epoch; by default the last 24 hours. */
export function reconcilePeriod(
  since: number | undefined,
  until: number | undefined,
  now = Date.now(),
): { since: number; until: number } {
  const end = until ?? now;
  return { since: since ?? end - DAY_MS, until: end };
}

export async function reconcileReport(
  deps: Pick<AdminDeps, 'repos'>,
  since: number,
  until: number,
  reservationTtlMs?: number,
): Promise<ReconcileReport> {
  return reconcile(await deps.repos.reconcile.read(since, until), since, until, Date.now(), reservationTtlMs);
}
