// GET /admin/reconcile?from=&to= — the ledger against the stored upstream usage for a period (core/reconcile.ts).
import type { FastifyInstance } from 'fastify';
import { qOnly, qTime, type Query } from '../../../contracts/query.ts';
import { reconcilePeriod, reconcileReport } from '../../../core/admin/reconcile.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { GatewayDeps } from '../../../core/deps.ts';

export function registerReconcileRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.get<{ Querystring: Query }>('/reconcile', async (req) => {
    qOnly(req.query, ['from', 'to']);
    const { from, to } = reconcilePeriod(qTime(req.query, 'from'), qTime(req.query, 'to'));
    if (from >= to) throw new GatewayError('invalid_parameter', 'from must be before to', { param: 'from' });
    // Queued charges and request-log rows first, so the report sees every call answered so far.
    await deps.meter.flush();
    await deps.requestLog.flush();
    return reconcileReport(deps, from, to, deps.config.reservationTtlMs);
  });
}
