// POST /vidx/v1/videos/text2video (+ query and list); the rules are core/vidx/create.ts.
import type { FastifyInstance } from 'fastify';
import type { VidxContext } from '../../../core/vidx/context.ts';
import { createText2Video } from '../../../core/vidx/create.ts';
import { createdView, KINDS } from '../../../core/vidx/views.ts';
import { ok } from './envelope.ts';
import { registerTaskQueries } from './task-query.ts';

export function registerText2Video(scope: FastifyInstance, ctx: VidxContext): void {
  scope.post('/videos/text2video', async (req) => ok(req, createdView(await createText2Video(ctx, req, req.body))));
  registerTaskQueries(scope, ctx, '/videos/text2video', KINDS.text2video);
}
