import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.ts';

export function registerAuditRoutes(scope: FastifyInstance, deps: AppDeps): void {
  scope.get<{ Querystring: { limit?: string } }>('/audit', async (req) => {
    const limit = Math.min(Math.max(Number(req.query.limit ?? 100) || 100, 1), 1000);
    const rows = await deps.repos.audit.list(limit);
    // snake_case like every other admin answer
    return { data: rows.map((r) => ({ id: r.id, at: r.at, actor: r.actor, action: r.action, target: r.target ?? null, detail: r.detail ?? null, request_id: r.requestId ?? null })) };
  });
}
