// POST /vidx/v1/videos/omni-video (+ query and list, as the vendor has them); the rules are core/vidx/create.ts.
import type { FastifyInstance } from 'fastify';
import type { VidxContext } from '../../../core/vidx/context.ts';
import { createOmniVideo } from '../../../core/vidx/create.ts';
import { createdView, KINDS } from '../../../core/vidx/views.ts';
import { ok } from './envelope.ts';
import { registerTaskQueries } from './task-query.ts';

export function registerOmniVideo(scope: FastifyInstance, ctx: VidxContext): void {
  scope.post('/videos/omni-video', async (req) => ok(req, createdView(await createOmniVideo(ctx, req, req.body))));
  registerTaskQueries(scope, ctx, '/videos/omni-video', KINDS.omni);
}
