// GET /admin/reconcile?since=&until= — the ledger against the stored upstream usage for a period (core/reconcile.ts).
import { qOnly, qTime, type Query } from '../../../contracts/query.ts';
import { reconcilePeriod, reconcileReport } from '../../../core/admin/reconcile.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { fastifyRoute } from '../../front/route-row.ts';

/** `since` (or `from`, its deprecated name kept for one release) — one of the two, not both. */
function either(q: Query, name: 'since' | 'until', old: 'from' | 'to'): number | undefined {
  const v = qTime(q, name);
  const o = qTime(q, old);
  if (v !== undefined && o !== undefined)
    throw new GatewayError('invalid_parameter', `${old} is the deprecated name of ${name}: give one`, { param: old });
  return v ?? o;
}

export const reconcile = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  qOnly(req.query, ['since', 'until', 'from', 'to']);
  const { since, until } = reconcilePeriod(either(req.query, 'since', 'from'), either(req.query, 'until', 'to'));
  if (since >= until) throw new GatewayError('invalid_parameter', 'since must be before until', { param: 'since' });
  // Queued charges and request-log rows first, so the report sees every call answered so far.
  await deps.meter.flush();
  await deps.requestLog.flush();
  return reconcileReport(deps, since, until, deps.config.reservationTtlMs);
});
