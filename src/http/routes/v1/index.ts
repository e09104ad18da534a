import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../../core/deps.ts';
import { registerMultipart } from '../../multipart.ts';
import { registerImageRoutes } from './images.ts';
import { registerCountTokensRoute } from './count-tokens.ts';
import { registerModelRoutes } from './models.ts';
import { registerUsageRoutes } from './usage.ts';
import { registerVideoRoutes } from './videos.ts';

// Family B (/v1): each capability registers its routes here.
export async function registerFamilyBRoutes(scope: FastifyInstance, deps: GatewayDeps): Promise<void> {
  await registerMultipart(scope);
  registerModelRoutes(scope, deps);
  registerCountTokensRoute(scope, deps);
  registerImageRoutes(scope, deps);
  registerVideoRoutes(scope, deps);
  registerUsageRoutes(scope, deps);
}
