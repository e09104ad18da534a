// Our task record → the vendor's task data shape (query, list, creation reply, client callbacks).
// Ids are ours (task, video, session); model names are the canonical public names.
import type { StoredVideo } from '../../adapters/kling/tasks.ts';
import type { VidxPath } from '../../catalogue/types.ts';
import { SERVED_BY } from '../../catalogue/vidx-endpoints.ts';
import { isObject } from '../../contracts/fields.ts';
import { redact } from '../../errors/redact.ts';
import type { TaskRecord, TaskState } from '../../tasks/types.ts';

export type VendorStatus = 'submitted' | 'processing' | 'succeed' | 'failed';

export const KINDS = { text2video: 'kling-text2video', edit: 'kling-multi-elements', omni: 'kling-omni-video' } as const;
export type VidxKind = (typeof KINDS)[keyof typeof KINDS];

const PATH_OF: Record<VidxKind, VidxPath> = { 'kling-text2video': 'text2video', 'kling-multi-elements': 'multi-elements', 'kling-omni-video': 'omni-video' };

/**
 * The stored kind of a task of a client path created on an upstream endpoint: the path's own kind, or
 * `<kind>@<endpoint>` when another endpoint serves it (an o1 text2video task: `kling-text2video@omni-video`). The kind
 * picks the engine's driver, so the task is queried, listed, recovered and called back at that endpoint, while the
 * client sees it on its own path.
 */
export function storedKind(kind: VidxKind, endpoint: VidxPath): string {
  return PATH_OF[kind] === endpoint ? kind : `${kind}@${endpoint}`;
}

/** Every stored kind a client path's tasks may have, and the upstream endpoint each is asked at. */
export function storedKinds(kind: VidxKind): Array<{ kind: string; endpoint: VidxPath }> {
  return SERVED_BY[PATH_OF[kind]].map((endpoint) => ({ kind: storedKind(kind, endpoint), endpoint }));
}

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
  return result.videos.filter((v): v is StoredVideo => isObject(v) && typeof v.url === 'string' && typeof v.upstreamId === 'string');
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
