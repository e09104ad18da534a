// Our task record → the vendor's task data shape (query, list, creation reply, client callbacks).
// Ids are ours (task, video, session); model names are the canonical public names.
import type { StoredVideo } from '../../adapters/kling/tasks.ts';
import { isObject } from '../../json/json.ts';
import { redact } from '../../errors/redact.ts';
import type { TaskRecord, TaskState } from '../../tasks/types.ts';

export type VendorStatus = 'submitted' | 'processing' | 'succeed' | 'failed';

export { KINDS, storedKind, storedKinds, type VidxKind } from '../../adapters/kling/task-kinds.ts';

const STATUS: Record<TaskState, VendorStatus> = {
  // Waiting in the gateway for a parallel-task slot of the upstream account: to the client, submitted.
  waiting: 'submitted',
  submitting: 'submitted',
  queued: 'submitted',
  in_progress: 'processing',
  succeeded: 'succeed',
  failed: 'failed',
  cancelled: 'failed',
};

export const vendorStatus = (s: TaskState): VendorStatus => STATUS[s];

/** Our video id for the i-th output of a task: derived, so no extra column is needed to find it. */
export function videoIdOf(taskId: string, index: number): string {
  return `video_${taskId.replace(/^task_/, '')}_${index}`;
}

export function parseVideoId(videoId: string): { taskId: string; index: number } | null {
  const m = /^video_([0-9a-f]{8,64})_(\d{1,3})$/.exec(videoId);
  return m ? { taskId: `task_${m[1]}`, index: Number(m[2]) } : null;
}

export function storedVideos(result: unknown): StoredVideo[] {
  if (!isObject(result) || !Array.isArray(result.videos)) return [];
  return result.videos.filter(
    (v): v is StoredVideo => isObject(v) && typeof v.url === 'string' && typeof v.upstreamId === 'string',
  );
}

export function taskView(t: TaskRecord): Record<string, unknown> {
  const status = vendorStatus(t.state);
  const data: Record<string, unknown> = {
    task_id: t.id,
    task_status: status,
    task_status_msg: status === 'failed' ? redact(t.error?.message ?? 'The task failed') : '',
    task_info: t.externalTaskId ? { external_task_id: t.externalTaskId } : {},
    model_name: t.model,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  };
  if (t.sessionId) data.session_id = t.sessionId;
  const req = isObject(t.request) ? t.request : {};
  if (isObject(req.watermark_info)) data.watermark_info = req.watermark_info;
  if (status === 'succeed') {
    data.task_result = {
      videos: storedVideos(t.result).map((v, i) => ({
        id: videoIdOf(t.id, i),
        url: v.url,
        ...(v.watermarkUrl ? { watermark_url: v.watermarkUrl } : {}),
        duration: v.duration,
        ...(t.sessionId ? { session_id: t.sessionId } : {}),
      })),
    };
  } else {
    data.task_result = {};
  }
  return data;
}

/** The creation reply's data. */
export function createdView(t: TaskRecord): Record<string, unknown> {
  return {
    task_id: t.id,
    task_status: vendorStatus(t.state),
    task_info: t.externalTaskId ? { external_task_id: t.externalTaskId } : {},
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  };
}
