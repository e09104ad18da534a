// The operator's view of async tasks (videos, family A tasks) across every token: a list to find stuck ones, one task
// with its timeline and ledger lines, and a cancel that fails a task without a charge (tasks/engine.ts:
// TaskEngine.cancel decides by the hold's compare-and-set).
import { encodeCursor } from '../../contracts/cursor.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { LedgerRepo } from '../../store/repos/ledger.ts';
import type { AdminTasksFilter, TasksRepo } from '../../store/repos/tasks.ts';
import type { TaskEvent } from '../../tasks/events.ts';
import type { TaskEngine } from '../../tasks/engine.ts';
import type { TaskRecord } from '../../tasks/types.ts';
import type { AdminTaskDetail, AdminTaskEventView, AdminTaskView } from '../views.ts';
import { audit, type Actor, type AdminDeps } from './deps.ts';
import type { Page } from './lists.ts';

export type { AdminTaskDetail, AdminTaskEventView, AdminTaskView };
import { downloadableResult } from '../videos.ts';
import { splitSlotQueue } from '../../routing/task-slots.ts';

export function adminTaskView(t: TaskRecord): AdminTaskView {
  return {
    id: t.id,
    family: t.family,
    kind: t.kind,
    state: t.state,
    token_id: t.tokenId,
    model: t.model,
    channel_id: t.channelId,
    upstream_task_id: t.upstreamTaskId,
    upstream_status: t.upstreamStatus,
    progress: t.progress,
    // The upstream's own words are the operator's (never in the client's view).
    error: t.error
      ? {
          code: t.error.code,
          message: t.error.message,
          ...(t.error.upstreamMessage ? { upstream_message: t.error.upstreamMessage } : {}),
        }
      : null,
    hold_amount: t.holdAmount,
    poll_attempts: t.pollAttempts,
    next_poll_at: t.nextPollAt,
    request_id: t.requestId,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
    finished_at: t.finishedAt,
    slot_queue: t.slotQueue ? splitSlotQueue(t.slotQueue) : null,
  };
}

const eventView = (e: TaskEvent): AdminTaskEventView => ({
  id: e.id,
  at: e.at,
  kind: e.kind,
  from: e.from,
  to: e.to,
  upstream_status: e.upstreamStatus,
  amount: e.amount,
  ledger_id: e.ledgerId,
  detail: e.detail,
});

export async function adminTaskDetail(
  repo: Pick<TasksRepo, 'get' | 'events'>,
  ledger: Pick<LedgerRepo, 'list'>,
  id: string,
): Promise<AdminTaskDetail> {
  const t = await repo.get(id);
  if (!t) throw new GatewayError('task_not_found', `Task ${id} not found`, { param: 'id' });
  const [events, lines] = await Promise.all([repo.events(id), ledger.list({ taskId: id, limit: 100 })]);
  return {
    ...adminTaskView(t),
    upstream_request_id: t.upstreamRequestId,
    events: events.map(eventView),
    ledger: lines,
    charged: lines.reduce((s, l) => s + l.amount, 0),
  };
}

export async function adminTaskPage(
  repo: Pick<TasksRepo, 'listAdmin'>,
  f: AdminTasksFilter,
): Promise<Page<AdminTaskView>> {
  const rows = await repo.listAdmin({ ...f, limit: f.limit + 1 });
  const more = rows.length > f.limit;
  const data = (more ? rows.slice(0, f.limit) : rows).map(adminTaskView);
  const last = data[data.length - 1];
  return { data, has_more: more, ...(more && last ? { next_cursor: encodeCursor([last.created_at, last.id]) } : {}) };
}

/**
 * Cancel a stuck task (a task waiting for a parallel-task slot is released and never submitted): 200 with the cancelled
 * task, 404 when there is none, 409 when it is not open (finished, or
 * still being submitted) or is being charged right now. One audit line per cancel that took effect.
 */
export async function cancelTask(
  deps: Pick<AdminDeps, 'repos'>,
  tasks: Pick<TaskEngine, 'cancel'>,
  id: string,
  by: Actor,
): Promise<AdminTaskView> {
  const r = await tasks.cancel(id);
  if (!r) throw new GatewayError('task_not_found', `No task ${id}`);
  if (r.outcome === 'finishing')
    throw new GatewayError(
      'conflict',
      `Task ${id} has just finished upstream and is being charged; it cannot be cancelled`,
    );
  if (r.outcome === 'not_open')
    throw new GatewayError(
      'conflict',
      `Task ${id} is ${r.task.state}; only waiting, queued or in-progress tasks can be cancelled`,
    );
  await audit(deps, by, 'task.cancel', id, {
    token_id: r.task.tokenId,
    model: r.task.model,
    kind: r.task.kind,
    hold_released: r.task.holdAmount,
  });
  return adminTaskView(r.task);
}

/** Any token's finished video, for the operator (the console plays it): where it is, or why it cannot be had. */
export async function adminTaskVideo(
  repo: TasksRepo,
  id: string,
): Promise<{ url: string; expired: () => GatewayError }> {
  const t = await repo.get(id);
  if (!t) throw new GatewayError('task_not_found', `Task ${id} not found`, { param: 'id' });
  return downloadableResult(t, `/admin/tasks/${t.id}`);
}
