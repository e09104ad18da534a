// POST /vidx/v1/videos/text2video (+ query and list); the rules are core/vidx/create.ts.
import { createText2Video } from '../../../core/vidx/create.ts';
import { createdView, KINDS } from '../../../core/vidx/views.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { ok } from './envelope.ts';
import { taskRoutes } from './task-query.ts';

export const text2video = taskRoutes(
  fastifyRoute(({ vidx }) => async (req) => {
    return ok(req, createdView(await createText2Video(vidx, req, req.body)));
  }),
  KINDS.text2video,
);
