// Kling task replies → engine outcomes. The create reply gives the upstream task id; the query's
// `data` gives status, failure reason and `task_result.videos[]`, whose durations are the usage.
import { isObject } from '../../json/json.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { PollOutcome, SubmitOutcome } from '../../tasks/types.ts';
import type { VidxPath } from '../../catalogue/types.ts';

/** An upstream task endpoint (`/v1/videos/<path>`): where a task is created, queried, listed and recovered. */
export type KlingTaskPath = VidxPath;

/** One produced video as we keep it (upstream id kept for init-selection by video_id; never shown). */
export interface StoredVideo {
  upstreamId: string;
  url: string;
  watermarkUrl?: string;
  /** Seconds as the vendor reported them (a string such as "5.1"). */
  duration: string;
  upstreamSessionId?: string;
}

export interface KlingTaskResult {
  videos: StoredVideo[];
}

const STATES: Record<string, PollOutcome['state']> = {
  submitted: 'queued',
  processing: 'in_progress',
  succeed: 'succeeded',
  failed: 'failed',
};

export function parseCreated(data: unknown, upstreamRequestId: string | null): SubmitOutcome {
  if (!isObject(data) || typeof data.task_id !== 'string' || data.task_id === '') {
    throw new GatewayError('upstream_error', 'The upstream accepted the task but returned no task id');
  }
  const status = typeof data.task_status === 'string' ? data.task_status : 'submitted';
  return {
    upstreamTaskId: data.task_id,
    upstreamRequestId,
    upstreamStatus: status,
    state: status === 'processing' ? 'in_progress' : 'queued',
  };
}

function parseVideos(data: Record<string, unknown>): StoredVideo[] {
  const r = data.task_result;
  if (!isObject(r) || !Array.isArray(r.videos)) return [];
  const out: StoredVideo[] = [];
  for (const v of r.videos) {
    if (!isObject(v) || typeof v.url !== 'string') continue;
    const item: StoredVideo = {
      upstreamId: typeof v.id === 'string' ? v.id : String(v.id ?? ''),
      url: v.url,
      duration: typeof v.duration === 'string' ? v.duration : String(v.duration ?? ''),
    };
    if (typeof v.watermark_url === 'string') item.watermarkUrl = v.watermark_url;
    if (typeof v.session_id === 'string') item.upstreamSessionId = v.session_id;
    out.push(item);
  }
  return out;
}

/** Reported output seconds: the sum of the videos' durations (null when none is a number). */
export function reportedSeconds(videos: StoredVideo[]): number | null {
  let total = 0;
  let any = false;
  for (const v of videos) {
    const n = Number(v.duration);
    if (v.duration !== '' && Number.isFinite(n) && n > 0) {
      total += n;
      any = true;
    }
  }
  return any ? total : null;
}

/** `final_unit_deduction` ("1", "3.5"): what the upstream deducted for the task, in its units; null when unreadable. */
export function unitDeduction(v: unknown): number | null {
  const n =
    typeof v === 'number' ? v : typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : Number.NaN;
  return Number.isFinite(n) && n >= 0 ? n : null;
}

export function parseTaskData(data: unknown, upstreamRequestId: string | null): PollOutcome {
  if (!isObject(data) || typeof data.task_status !== 'string')
    throw new GatewayError('upstream_error', 'The upstream returned a malformed task status');
  const state = STATES[data.task_status];
  if (!state)
    throw new GatewayError('upstream_error', `The upstream returned an unknown task status ${data.task_status}`);
  const out: PollOutcome = { state, upstreamStatus: data.task_status, upstreamRequestId };
  if (state === 'succeeded') {
    const videos = parseVideos(data);
    // A success that delivers no video is the task's failure: nothing to charge (as DashScope's without a URL).
    if (videos.length === 0) {
      return {
        state: 'failed',
        upstreamStatus: data.task_status,
        upstreamRequestId,
        error: {
          code: 'upstream_no_output',
          message: 'The upstream task succeeded without a video',
          upstreamRequestId,
        },
      };
    }
    const result: KlingTaskResult = { videos };
    out.result = result;
    out.progress = 100;
    // No reported duration → the charge is the hold estimate (requested seconds): core/video-usage.ts.
    const seconds = reportedSeconds(videos);
    const units = unitDeduction(data.final_unit_deduction);
    if (seconds !== null || units !== null)
      out.reported = { outputSeconds: seconds, ...(units !== null ? { upstreamUnits: units } : {}) };
  } else if (state === 'failed') {
    // The upstream's reason (it may name its models or hosts) is the operators'; the client gets our words.
    const reason = typeof data.task_status_msg === 'string' && data.task_status_msg ? data.task_status_msg : undefined;
    out.error = {
      code: 'upstream_task_failed',
      message: 'The upstream task failed',
      upstreamRequestId,
      ...(reason ? { upstreamMessage: reason } : {}),
    };
  }
  return out;
}
