// /admin/tokens: client tokens (core/admin/tokens.ts).
import type { FastifyInstance } from 'fastify';
import { createdToken, getToken, issueToken, listTokens, parseCreateToken, publicToken, revokeToken } from '../../../core/admin/tokens.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { adminActor } from './admin-auth.ts';

export function registerTokenRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.post('/tokens', async (req, reply) => {
    const created = await issueToken(deps, adminActor(req), parseCreateToken(req.body));
    return reply.code(201).send(createdToken(created));
  });
  scope.get('/tokens', async () => ({ data: (await listTokens(deps)).map(publicToken) }));
  scope.get<{ Params: { id: string } }>('/tokens/:id', async (req) => publicToken(await getToken(deps, req.params.id)));
  scope.delete<{ Params: { id: string } }>('/tokens/:id', async (req) => publicToken(await revokeToken(deps, adminActor(req), req.params.id)));
}
