import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.ts';
import { registerModelRoutes } from './models.ts';

// Family B (/v1): each capability registers its routes here.
export async function registerFamilyBRoutes(scope: FastifyInstance, deps: AppDeps): Promise<void> {
  registerModelRoutes(scope, deps);
}
