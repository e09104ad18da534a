import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.ts';

// Family A (/vidx/v1): vendor-style video API routes register here.
export async function registerFamilyARoutes(_scope: FastifyInstance, _deps: AppDeps): Promise<void> {}
