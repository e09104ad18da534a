// OpenAPI paths of the operator's task list, cancel and video download (routes/admin/tasks.ts).
import { obj, arr, str, pathParam, query, admin, ok, type Operation } from './schema.ts';
import { adminTaskView, cursorParam, limitParam, timeParam } from './admin-schemas.ts';

export function adminTaskPaths(): Record<string, Record<string, Operation>> {
  return {
    '/admin/tasks': {
      get: admin('Async tasks of every token (videos, family A tasks), newest first, to find stuck ones; unknown parameters are refused', {
        parameters: [
          query('state', { type: 'string', enum: ['submitting', 'queued', 'in_progress', 'succeeded', 'failed', 'cancelled'] }, 'Only tasks in this state'),
          query('kind', str(), 'Only this task kind (dashscope-video, kling-text2video, …)'),
          query('token_id', str(), 'Only this token'),
          query('model', str(), 'Only this public model'),
          timeParam('since'),
          timeParam('until'),
          limitParam,
          cursorParam,
        ],
      }, obj({ data: arr(adminTaskView), has_more: { type: 'boolean' }, next_cursor: str('present when has_more') }, ['data', 'has_more'])),
    },
    '/admin/tasks/{id}/content': {
      get: admin('The finished video of any token\'s task (a /v1 video, or a family A task\'s first video), streamed from its result host (409 video_not_ready before; Range supported)', {
        parameters: [pathParam('id', 'The public task id (video_… / task_…)'), { name: 'Range', in: 'header', schema: str(), description: 'passed through (206)' }],
      }, obj(), '200', ok({ type: 'string', format: 'binary' }, 'The video file', 'video/mp4')),
    },
    '/admin/tasks/{id}/cancel': {
      post: admin('Cancel a queued or in-progress task: it fails without a charge, its hold goes back to the token, an audit line is written, and the upstream is asked to stop it where it offers that. 409 when the task has finished or is being charged', {
        parameters: [pathParam('id', 'The public task id (video_… / task_…)')],
      }, adminTaskView),
    },
  };
}
