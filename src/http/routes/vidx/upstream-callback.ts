// POST /vidx/callbacks/kling/<task id>.<tag>: the upstream's completion notice (only asked for when
// TOLLWAY_PUBLIC_URL is set). The body is not trusted: the tag proves we issued the address, and the
// task is made due and refreshed from the upstream at once (same path as the poller: leases, compare-and-set,
// exactly-once metering; when another instance holds the lease, its next round takes the task).
// No bearer token: its row's authentication is none.
import { GatewayError } from '../../../errors/gateway-error.ts';
import { isTerminal } from '../../../tasks/types.ts';
import { verifyCallbackRef } from '../../../core/vidx/context.ts';
import { fastifyRoute } from '../../front/route-row.ts';

export const klingNotice = fastifyRoute<{ Params: { ref: string } }>(({ vidx: ctx }) => async (req) => {
  const taskId = verifyCallbackRef(ctx, req.params.ref);
  const task = taskId ? await ctx.deps.tasks.repo.get(taskId) : null;
  if (task?.family !== 'vidx') throw new GatewayError('not_found', 'Unknown callback address');
  const fresh = await ctx.deps.tasks.upstreamNotified(task);
  if (isTerminal(fresh.state)) ctx.kick();
  return { code: 0, message: 'success', request_id: req.id, data: null };
});
