// GET …/{task_id} and GET …?pageNum=&pageSize= for one task kind, served from our store and only
// for the caller's own tasks (the upstream account's list would show every tenant's tasks).
import type { FastifyInstance } from 'fastify';
import type { VidxContext } from '../../../core/vidx/context.ts';
import type { VidxKind } from '../../../core/vidx/views.ts';
import { findOwnTask, listOwnTasks } from '../../../core/vidx/tasks.ts';
import { ok } from './envelope.ts';
import { taskView } from '../../../core/vidx/views.ts';

export function registerTaskQueries(scope: FastifyInstance, ctx: VidxContext, path: string, kind: VidxKind): void {
  scope.get<{ Params: { id: string } }>(`${path}/:id`, async (req) => ok(req, taskView(await findOwnTask(ctx, req, kind, req.params.id))));
  scope.get(path, async (req) => ok(req, (await listOwnTasks(ctx, req, kind, req.query as Record<string, unknown>)).map(taskView)));
}
