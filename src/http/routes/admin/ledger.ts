import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { qInt, qString, qTime, type Query } from '../../../contracts/query.ts';
import type { GatewayDeps } from '../../../core/deps.ts';

export function timeRange(q: Query): { since?: number; until?: number } {
  const since = qTime(q, 'since');
  const until = qTime(q, 'until');
  if (since !== undefined && until !== undefined && until < since) throw new GatewayError('invalid_parameter', 'until must not be before since', { param: 'until' });
  return { ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}) };
}

/**
 * GET /admin/ledger?token_id=&model=&request_id=&task_id=&since=&until=&limit=&before_id=
 * Newest first. `since` is inclusive, `until` exclusive. Queued deferred charges are flushed first, so an
 * operator read sees every call that has already been answered.
 */
export function registerLedgerRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.get<{ Querystring: Query }>('/ledger', async (req) => {
    const q = req.query;
    const limit = qInt(q, 'limit', 1, 1000, 100)!;
    const filter = {
      tokenId: qString(q, 'token_id'),
      model: qString(q, 'model'),
      requestId: qString(q, 'request_id'),
      taskId: qString(q, 'task_id'),
      beforeId: qInt(q, 'before_id', 1, Number.MAX_SAFE_INTEGER),
      ...timeRange(q),
      limit,
    };
    await deps.meter.flush();
    const data = await deps.repos.ledger.list(filter);
    return { data, has_more: data.length === limit, ...(data.length === limit ? { next_before_id: data[data.length - 1]!.id } : {}) };
  });
}
