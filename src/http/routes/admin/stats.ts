import type { FastifyInstance } from 'fastify';
import { qEnum, qOnly, type Query } from '../../../contracts/query.ts';
import { gatewayHealth } from '../../../core/admin/health.ts';
import { overviewStats, WINDOWS, type StatsWindow } from '../../../core/admin/stats.ts';
import type { GatewayDeps } from '../../../core/deps.ts';

/**
 * GET /admin/stats?window=1h|24h|30d&group_by=token|account: requests, errors and spend per time bucket, top models
 * and tokens (group_by=account: and accounts).
 * GET /admin/health: each channel's breaker and recent traffic, and the open async tasks by state.
 */
export function registerStatsRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  const windows = Object.keys(WINDOWS) as StatsWindow[];
  scope.get<{ Querystring: Query }>('/stats', async (req) => {
    qOnly(req.query, ['window', 'group_by']);
    const window = qEnum(req.query, 'window', windows, '24h');
    const groupBy = qEnum(req.query, 'group_by', ['token', 'account'] as const, 'token');
    await deps.requestLog.flush();
    return overviewStats(deps, window, Date.now(), groupBy);
  });

  scope.get<{ Querystring: Query }>('/health', async (req) => {
    qOnly(req.query, []);
    await deps.requestLog.flush();
    return gatewayHealth(deps);
  });
}
