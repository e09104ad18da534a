// OpenAPI paths of the operator's task list, one task with its timeline, cancel and video download
// (routes/admin/tasks.ts).
import { obj, arr, int, str, pathParam, query, admin, ok, type Operation, type Schema } from './schema.ts';
import { TASK_STATES } from '../../tasks/types.ts';
import { adminTaskView, cursorParam, ledgerEntry, limitParam, micro, timeParam } from './admin-schemas.ts';

const STATE = { type: ['string', 'null'], enum: [...TASK_STATES, null] };
const taskEvent = obj(
  {
    id: int(),
    at: int('ms'),
    kind: {
      type: 'string',
      enum: [
        'created',
        'waiting',
        'slot',
        'submitted',
        'recovered',
        'status',
        'succeeded',
        'failed',
        'cancelled',
        'charged',
        'hold_released',
      ],
      description:
        'created (→ submitting, or → waiting); waiting (held in the gateway for a free parallel-task slot of its upstream account: detail says why); slot (it took a free slot of its queue, → submitting); submitted (the upstream took it: detail names its task id, amount is the hold); recovered (a creation whose answer was lost, found upstream); status (the upstream status changed, seen by a poll); succeeded / failed / cancelled; charged (amount and ledger_id of its ledger line); hold_released (amount)',
    },
    from: { ...STATE, description: 'the state before a state event; null for charged / hold_released and for created' },
    to: { ...STATE, description: 'the state after a state event; null for charged / hold_released' },
    upstream_status: { type: ['string', 'null'], description: 'the upstream status the change set' },
    amount: { type: ['integer', 'null'], description: 'micro-units: charged, released, or held at submit' },
    ledger_id: { type: ['integer', 'null'], description: 'charged: the ledger line' },
    detail: {
      type: ['string', 'null'],
      description: 'upstream status change (old → new), error code and message, or upstream task id',
    },
  },
  ['id', 'at', 'kind', 'from', 'to', 'upstream_status', 'amount', 'ledger_id', 'detail'],
);
const adminTaskDetail: Schema = {
  ...adminTaskView,
  properties: {
    ...(adminTaskView.properties as Record<string, Schema>),
    upstream_request_id: { type: ['string', 'null'] },
    events: arr(
      taskEvent,
      'every state change and money move of the task, oldest first; written with the change it records',
    ),
    ledger: arr(ledgerEntry, "the task's ledger lines (at most one charge, key <task id>:success)"),
    charged: micro('the sum of the ledger lines'),
  },
  required: [...(adminTaskView.required as string[]), 'events', 'ledger', 'charged'],
};

export function adminTaskPaths(): Record<string, Record<string, Operation>> {
  return {
    '/admin/tasks': {
      get: admin(
        'Async tasks of every token (videos, family A tasks), newest first, to find stuck ones; unknown parameters are refused',
        {
          parameters: [
            query('state', { type: 'string', enum: [...TASK_STATES] }, 'Only tasks in this state'),
            query('kind', str(), 'Only this task kind (dashscope-video, kling-text2video, …)'),
            query('token_id', str(), 'Only this token'),
            query('model', str(), 'Only this public model'),
            timeParam('since'),
            timeParam('until'),
            limitParam,
            cursorParam,
          ],
        },
        obj({ data: arr(adminTaskView), has_more: { type: 'boolean' }, next_cursor: str('present when has_more') }, [
          'data',
          'has_more',
        ]),
      ),
    },
    '/admin/tasks/{id}': {
      get: admin(
        'One task of any token with its timeline (every state change, the charge with its ledger line, the hold released) and its ledger lines; 404 task_not_found',
        {
          parameters: [pathParam('id', 'The public task id (video_… / task_…)')],
        },
        adminTaskDetail,
      ),
    },
    '/admin/tasks/{id}/content': {
      get: admin(
        "The finished video of any token's task (a /v1 video, or a family A task's first video), streamed from its result host (409 video_not_ready before; Range supported)",
        {
          parameters: [
            pathParam('id', 'The public task id (video_… / task_…)'),
            {
              name: 'Range',
              in: 'header',
              schema: str(),
              description:
                'one byte range (bytes=first-last, first- or -suffix; unit in any case): 206, or 416 past the end; any other Range, a list of ranges included, is ignored (200, the whole file)',
            },
          ],
        },
        obj(),
        '200',
        ok({ type: 'string', format: 'binary' }, 'The video file', 'video/mp4'),
      ),
    },
    '/admin/tasks/{id}/cancel': {
      post: admin(
        'Cancel a queued or in-progress task: it fails without a charge, its hold goes back to the token, an audit line is written, and the upstream is asked to stop it where it offers that. 409 when the task has finished or is being charged',
        {
          parameters: [pathParam('id', 'The public task id (video_… / task_…)')],
        },
        adminTaskView,
      ),
    },
  };
}
