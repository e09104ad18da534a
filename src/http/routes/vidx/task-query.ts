// GET …/{task_id} and GET …?pageNum=&pageSize= for one task kind, served from our store and only
// for the caller's own tasks (the upstream account's list would show every tenant's tasks).
import type { VidxKind } from '../../../core/vidx/views.ts';
import { findOwnTask, listOwnTasks } from '../../../core/vidx/tasks.ts';
import { taskView } from '../../../core/vidx/views.ts';
import { fastifyRoute, type FastifyRoute } from '../../front/route-row.ts';
import { ok } from './envelope.ts';

/** A task kind's routes: its creation, then the caller's own tasks, listed and one by id. */
export interface TaskRoutes {
  create: FastifyRoute;
  list: FastifyRoute;
  one: FastifyRoute;
}

export const taskRoutes = (create: FastifyRoute, kind: VidxKind): TaskRoutes => ({
  create,
  list: fastifyRoute(({ vidx }) => async (req) => {
    return ok(req, (await listOwnTasks(vidx, req, kind, req.query as Record<string, unknown>)).map(taskView));
  }),
  one: fastifyRoute<{ Params: { id: string } }>(({ vidx }) => async (req) => {
    return ok(req, taskView(await findOwnTask(vidx, req, kind, req.params.id)));
  }),
});
