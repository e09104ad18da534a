import type { FastifyInstance } from 'fastify';
import type { VidxContext } from '../../../core/vidx/context.ts';
import { registerMultiElements } from './multi-elements.ts';
import { registerOmniVideo } from './omni-video.ts';
import { registerText2Video } from './text2video.ts';
import { registerUpstreamCallbacks } from './upstream-callback.ts';

// Family A (/vidx/v1): vendor-style video API routes register here; the context is built in src/compose.ts.
export async function registerFamilyARoutes(scope: FastifyInstance, ctx: VidxContext): Promise<void> {
  registerText2Video(scope, ctx);
  registerMultiElements(scope, ctx);
  registerOmniVideo(scope, ctx);
}

/** /vidx/callbacks: upstream completion notices (no bearer token; see upstream-callback.ts). */
export async function registerFamilyACallbackRoutes(scope: FastifyInstance, ctx: VidxContext): Promise<void> {
  registerUpstreamCallbacks(scope, ctx);
}
