// POST /vidx/v1/videos/omni-video (+ query and list, as the vendor has them); the rules are core/vidx/create.ts.
import { createOmniVideo } from '../../../core/vidx/create.ts';
import { createdView, KINDS } from '../../../core/vidx/views.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { ok } from './envelope.ts';
import { taskRoutes } from './task-query.ts';

export const omniVideo = taskRoutes(
  fastifyRoute(({ vidx }) => async (req) => {
    return ok(req, createdView(await createOmniVideo(vidx, req, req.body)));
  }),
  KINDS.omni,
);
