import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.ts';

export function registerAuditRoutes(scope: FastifyInstance, deps: AppDeps): void {
  scope.get<{ Querystring: { limit?: string } }>('/audit', async (req) => {
    const limit = Math.min(Math.max(Number(req.query.limit ?? 100) || 100, 1), 1000);
    return { data: await deps.repos.audit.list(limit) };
  });
}
