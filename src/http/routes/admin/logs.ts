import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../../core/deps.ts';
import { qInt, qString, type Query } from '../../../contracts/query.ts';
import { timeRange } from './ledger.ts';

/**
 * GET /admin/logs?request_id=&token_id=&model=&since=&until=&limit=&before=
 * The per-request log (request id, token, model, endpoint, status, latency, usage, amount, upstream request id),
 * newest first. `amount` is what the request path computed; the ledger stays the billing authority.
 */
export function registerLogRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.get<{ Querystring: Query }>('/logs', async (req) => {
    const q = req.query;
    const limit = qInt(q, 'limit', 1, 1000, 100)!;
    const filter = {
      requestId: qString(q, 'request_id'),
      tokenId: qString(q, 'token_id'),
      model: qString(q, 'model'),
      beforeCreatedAt: qInt(q, 'before', 1, Number.MAX_SAFE_INTEGER),
      ...timeRange(q),
      limit,
    };
    // Request-log rows are group-committed too: make the ones already answered visible.
    await deps.requestLog.flush();
    const data = await deps.repos.requestLog.list(filter);
    return { data, has_more: data.length === limit };
  });
}
