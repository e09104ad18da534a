import { qOnly, type Query } from '../../../contracts/query.ts';
import { gatewayHealth } from '../../../core/admin/health.ts';
import { overviewStats, statsQuery } from '../../../core/admin/stats.ts';
import { fastifyRoute } from '../../front/route-row.ts';

/**
 * GET /admin/stats?window=1h|24h|30d&group_by=token|account: requests, errors and spend per time bucket, top models
 * and tokens (group_by=account: and accounts).
 * GET /admin/health: each channel's breaker and recent traffic, and the open async tasks by state.
 */
export const stats = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  const { window, groupBy } = statsQuery(req.query);
  await deps.requestLog.flush();
  return overviewStats(deps, window, Date.now(), groupBy);
});

export const health = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  qOnly(req.query, []);
  await deps.requestLog.flush();
  return gatewayHealth(deps);
});
