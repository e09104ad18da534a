// GET …/{task_id} and GET …?pageNum=&pageSize= for one task kind, served from our store and only
// for the caller's own tasks (the upstream account's list would show every tenant's tasks).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { readPage } from '../../../contracts/vidx.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { TaskRecord } from '../../../tasks/types.ts';
import { isTerminal } from '../../../tasks/types.ts';
import { principalOf } from '../../../core/call.ts';
import type { FamilyAContext } from './context.ts';
import { ok } from './envelope.ts';
import { taskView } from './task-view.ts';

/** By our task id, else by the caller's external_task_id; refreshed from the upstream when stale. */
async function findOwnTask(ctx: FamilyAContext, req: FastifyRequest, kind: string, idOrExternal: string): Promise<TaskRecord> {
  const tokenId = principalOf(req).tokenId;
  const { tasks } = ctx.deps;
  let t = await tasks.repo.getFor(idOrExternal, tokenId);
  if (!t || t.kind !== kind) t = await tasks.repo.findByExternal(tokenId, kind, idOrExternal);
  if (!t || t.kind !== kind) throw new GatewayError('task_not_found', `Task ${idOrExternal} not found`, { param: 'task_id' });
  const fresh = (await tasks.getFresh(t.id, tokenId)) ?? t;
  if (isTerminal(fresh.state) && fresh.callbackUrl) ctx.kick();
  req.state.model = fresh.model;
  return fresh;
}

async function listOwnTasks(ctx: FamilyAContext, req: FastifyRequest, kind: string): Promise<TaskRecord[]> {
  const { pageNum, pageSize } = readPage(req.query as Record<string, unknown>);
  return ctx.deps.tasks.repo.listFor(principalOf(req).tokenId, { family: 'vidx', kind, limit: pageSize, offset: (pageNum - 1) * pageSize });
}

export function registerTaskQueries(scope: FastifyInstance, ctx: FamilyAContext, path: string, kind: string): void {
  scope.get<{ Params: { id: string } }>(`${path}/:id`, async (req) => ok(req, taskView(await findOwnTask(ctx, req, kind, req.params.id))));
  scope.get(path, async (req) => ok(req, (await listOwnTasks(ctx, req, kind)).map(taskView)));
}
