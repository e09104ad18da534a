import type { FastifyInstance } from 'fastify';
import { qInt, type Query } from '../../../contracts/query.ts';
import type { GatewayDeps } from '../../../core/deps.ts';

export function registerAuditRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.get<{ Querystring: Query }>('/audit', async (req) => {
    const limit = qInt(req.query, 'limit', 1, 1000, 100)!;
    const rows = await deps.repos.audit.list(limit);
    // snake_case like every other admin answer
    return { data: rows.map((r) => ({ id: r.id, at: r.at, actor: r.actor, action: r.action, target: r.target ?? null, detail: r.detail ?? null, request_id: r.requestId ?? null })) };
  });
}
