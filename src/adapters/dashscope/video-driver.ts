// The task-engine driver for DashScope video synthesis: one status query → PollOutcome, with the usage the
// provider reported (seconds, resolution) as it said it; core/video-usage.ts decides what is charged.
import type { Channel } from '../../routing/channel-registry.ts';
import type { CallLimit, PollOutcome, TaskDriver, TaskRecord } from '../../tasks/types.ts';
import { apiKeyTarget } from '../../routing/channel-target.ts';
import type { UpstreamClient } from '../http-client.ts';
import { cancelVideoTask, queryVideoTask } from './video.ts';
import { LIST_OPEN_STATUSES, LIST_PAGE_SIZE, listTaskPage, type TaskListPage } from './task-list.ts';

export const DASHSCOPE_VIDEO_TASK_KIND = 'dashscope-video';

/** What `tasks.result` holds for a finished video. */
export interface VideoTaskResult {
  url: string;
  /** ms since epoch, from the signed URL's Expires, when known. */
  expiresAt: number | null;
}

/**
 * No `recoverSubmit`: a DashScope creation carries no id of ours (no external id, no idempotency key) and its list
 * endpoint's shape is unverified, so a task whose creation answer was lost cannot be told apart from another
 * tenant's on the same account. The engine fails it uncharged and reports it for the operator to check.
 */
export class DashscopeVideoDriver implements TaskDriver {
  constructor(
    private readonly client: UpstreamClient,
    private readonly upstreamAccountOf: (channel: Channel) => string,
  ) {}

  /** DashScope counts task queries per Alibaba Cloud account (20 per second, shared by its keys). */
  queryAccount(channel: Channel): string {
    return this.upstreamAccountOf(channel);
  }

  readonly listOpenStatuses = LIST_OPEN_STATUSES;

  readonly listPageSize = LIST_PAGE_SIZE;

  listPage(channel: Channel, createdFrom: number, pageNo: number, limit: CallLimit): Promise<TaskListPage> {
    return listTaskPage(this.client, apiKeyTarget(channel), createdFrom, pageNo, limit);
  }

  async cancel(task: TaskRecord, channel: Channel, limit: CallLimit): Promise<void> {
    if (task.upstreamTaskId) await cancelVideoTask(this.client, apiKeyTarget(channel), task.upstreamTaskId, limit);
  }

  async poll(task: TaskRecord, channel: Channel, limit: CallLimit): Promise<PollOutcome> {
    if (!task.upstreamTaskId) return { state: 'unknown', upstreamStatus: 'NO_TASK_ID' };
    const s = await queryVideoTask(this.client, apiKeyTarget(channel), task.upstreamTaskId, limit);
    const base = { upstreamStatus: s.upstreamStatus, upstreamRequestId: s.upstreamRequestId };
    switch (s.state) {
      case 'queued':
        return { ...base, state: 'queued', progress: 0 };
      case 'in_progress':
        return { ...base, state: 'in_progress', progress: 50 };
      case 'succeeded': {
        const result: VideoTaskResult = { url: s.videoUrl, expiresAt: s.expiresAt };
        return { ...base, state: 'succeeded', progress: 100, result, reported: s.usage };
      }
      default:
        return {
          ...base,
          state: s.state,
          error: {
            code: s.code,
            message: s.message,
            upstreamRequestId: s.upstreamRequestId,
            ...(s.upstreamMessage ? { upstreamMessage: s.upstreamMessage } : {}),
          },
        };
    }
  }
}
