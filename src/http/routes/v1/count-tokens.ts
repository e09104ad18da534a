// POST /v1/messages/count_tokens: the messages API's token count (a local estimate; core/count-tokens.ts). Its
// errors take the messages shape, as /v1/messages's do (errors/render.ts familyOf).
import type { FastifyInstance } from 'fastify';
import { requireBody } from '../../../contracts/fields.ts';
import { countMessageTokens } from '../../../core/count-tokens.ts';
import type { GatewayDeps } from '../../../core/deps.ts';

export function registerCountTokensRoute(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.post('/messages/count_tokens', async (req) => countMessageTokens(deps, req, requireBody(req.body)));
}
