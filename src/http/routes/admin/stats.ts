import type { FastifyInstance } from 'fastify';
import { qOnly, type Query } from '../../../contracts/query.ts';
import { gatewayHealth } from '../../../core/admin/health.ts';
import { overviewStats, statsQuery } from '../../../core/admin/stats.ts';
import type { GatewayDeps } from '../../../core/deps.ts';

/**
 * GET /admin/stats?window=1h|24h|30d&group_by=token|account: requests, errors and spend per time bucket, top models
 * and tokens (group_by=account: and accounts).
 * GET /admin/health: each channel's breaker and recent traffic, and the open async tasks by state.
 */
export function registerStatsRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.get<{ Querystring: Query }>('/stats', async (req) => {
    const { window, groupBy } = statsQuery(req.query);
    await deps.requestLog.flush();
    return overviewStats(deps, window, Date.now(), groupBy);
  });

  scope.get<{ Querystring: Query }>('/health', async (req) => {
    qOnly(req.query, []);
    await deps.requestLog.flush();
    return gatewayHealth(deps);
  });
}
