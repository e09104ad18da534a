// GET /admin/tasks (every token's async tasks, newest first, filters and cursor), GET /admin/tasks/{id} (one task with
// its timeline and ledger lines), POST /admin/tasks/{id}/cancel and GET /admin/tasks/{id}/content (the finished
// video, streamed from its result host).
import { decodeCursor } from '../../../contracts/cursor.ts';
import { qEnum, qInt, qOnly, qString, type Query } from '../../../contracts/query.ts';
import { adminTaskDetail, adminTaskPage, adminTaskVideo, cancelTask } from '../../../core/admin/tasks.ts';
import { sendVideoContent } from '../../video-content.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { TASK_STATES } from '../../../tasks/types.ts';
import { adminActor } from './admin-auth.ts';
import { timeRange } from './ledger.ts';

const PARAMS = ['state', 'kind', 'token_id', 'model', 'since', 'until', 'limit', 'cursor'] as const;

type ById = { Params: { id: string } };

export const list = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  const q = req.query;
  qOnly(q, PARAMS);
  const cursor = qString(q, 'cursor', 400);
  const after = cursor === undefined ? undefined : decodeCursor(cursor, ['n', 's']);
  const state = qString(q, 'state') === undefined ? undefined : qEnum(q, 'state', TASK_STATES, 'queued');
  return adminTaskPage(deps.tasks.repo, {
    state,
    kind: qString(q, 'kind'),
    tokenId: qString(q, 'token_id'),
    model: qString(q, 'model'),
    ...timeRange(q),
    ...(after ? { after: { createdAt: after[0] as number, id: after[1] as string } } : {}),
    limit: qInt(q, 'limit', 1, 1000, 100)!,
  });
});

export const one = fastifyRoute<ById>(({ deps }) => async (req) => {
  return adminTaskDetail(deps.tasks.repo, deps.repos.ledger, req.params.id);
});

export const content = fastifyRoute<ById>(({ deps }) => async (req, reply) => {
  return sendVideoContent(deps, req, reply, await adminTaskVideo(deps.tasks.repo, req.params.id), req.params.id);
});

export const cancel = fastifyRoute<ById>(({ deps }) => async (req) => {
  return cancelTask(deps, deps.tasks, req.params.id, adminActor(req));
});
