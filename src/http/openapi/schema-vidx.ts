// Family A's bodies in the OpenAPI document: the vendor envelope, a task's creation, query and callback data, the
// selection shapes of the multi-element workflow.
import { type Schema, arr, int, num, obj, str } from './schema.ts';

export const envelope = (data: Schema): Schema =>
  obj({ code: int('0 on success'), message: str('`success` on success'), request_id: str(), data }, [
    'code',
    'message',
    'request_id',
  ]);
export const taskStatus: Schema = { type: 'string', enum: ['submitted', 'processing', 'succeed', 'failed'] };
export const taskInfo = obj({ external_task_id: str("the caller's external_task_id, when given") });
// The creation reply's data.
export const taskData = obj(
  {
    task_id: str('Our task id (task_…)'),
    task_status: taskStatus,
    task_info: taskInfo,
    created_at: int('ms'),
    updated_at: int('ms'),
  },
  ['task_id', 'task_status', 'created_at', 'updated_at'],
);
export const resultVideo = obj({
  id: str('Our video id (video_<task>_<n>)'),
  url: str(),
  watermark_url: str(),
  duration: str('seconds'),
  session_id: str('edit tasks'),
});
// Query, list item and callback body: the creation fields plus the task's state and result (ids ours, model canonical).
export const taskQueryData = obj(
  {
    task_id: str(),
    task_status: taskStatus,
    task_status_msg: str('why the task failed (sanitised); empty otherwise'),
    task_info: taskInfo,
    model_name: str('canonical public model name'),
    session_id: str('edit tasks: our session id'),
    watermark_info: obj(),
    task_result: obj({ videos: arr(resultVideo, 'on succeed') }),
    created_at: int('ms'),
    updated_at: int('ms'),
  },
  ['task_id', 'task_status', 'created_at', 'updated_at'],
);
export const point = obj({ x: num('in [0, 1]'), y: num('in [0, 1]') }, ['x', 'y']);
export const selection = obj(
  {
    session_id: str(),
    frame_index: { type: 'integer', minimum: 0, description: 'frame number' },
    points: { ...arr(point), minItems: 1, maxItems: 10 },
  },
  ['session_id', 'frame_index', 'points'],
);
export const selectionData = (res?: Schema): Schema =>
  obj({ status: int('0 = accepted'), session_id: str('our session id'), ...(res ? { res } : {}) });
export const rleMask = obj({
  object_id: int(),
  rle_mask: obj({ size: arr(int(), '[height, width]'), counts: str('COCO-style compressed RLE') }),
  png_mask: obj({ size: arr(int()), base64: str() }),
});
export const modeEnum = (def: 'std' | 'pro'): Schema => ({ type: 'string', enum: ['std', 'pro'], default: def });
