// GET /admin/reconcile?from=&to= — the ledger against the stored upstream usage for a period (core/reconcile.ts).
import { qOnly, qTime, type Query } from '../../../contracts/query.ts';
import { reconcilePeriod, reconcileReport } from '../../../core/admin/reconcile.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { fastifyRoute } from '../../front/route-row.ts';

export const reconcile = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  qOnly(req.query, ['from', 'to']);
  const { from, to } = reconcilePeriod(qTime(req.query, 'from'), qTime(req.query, 'to'));
  if (from >= to) throw new GatewayError('invalid_parameter', 'from must be before to', { param: 'from' });
  // Queued charges and request-log rows first, so the report sees every call answered so far.
  await deps.meter.flush();
  await deps.requestLog.flush();
  return reconcileReport(deps, from, to, deps.config.reservationTtlMs);
});
