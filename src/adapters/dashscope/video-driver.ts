// The task-engine driver for DashScope video synthesis: one status query → PollOutcome, with the
// provider-reported duration (edit models: input + output) at the reported (or requested) tier.
import type { Usage, VideoTier } from '../../metering/types.ts';
import type { Channel } from '../../routing/channel-registry.ts';
import type { CallLimit, PollOutcome, TaskDriver, TaskRecord } from '../../tasks/types.ts';
import { videoTierFromSR } from '../../metering/prices.ts';
import { apiKeyTarget } from '../../routing/channel-target.ts';
import type { UpstreamClient } from '../http-client.ts';
import { cancelVideoTask, queryVideoTask } from './video.ts';
import { billedSeconds } from './video-usage.ts';
import { listTaskPage, type TaskListPage } from './task-list.ts';
import { accountOf } from '../../routing/upstream-account.ts';

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
    /** Price basis of a billing model ('input+output' for edit models). */
    private readonly basisOf: (billingModel: string) => 'output' | 'input+output',
  ) {}

  /** DashScope counts task queries per Alibaba Cloud account (20 per second, shared by its keys). */
  queryAccount(channel: Channel): string {
    return accountOf(channel);
  }

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
        const secs = billedSeconds(s.usage, this.basisOf(task.billingModel));
        // The reported resolution decides the tier; without one, the tier the task was created (and held) at.
        const tier: VideoTier = videoTierFromSR(s.usage.sr) ?? (task.tier === '720p' ? '720p' : '1080p');
        const usage: Usage | undefined = secs ? { kind: 'video', outputSeconds: secs.outputSeconds, inputSeconds: secs.inputSeconds, tier } : undefined;
        return { ...base, state: 'succeeded', progress: 100, result, ...(usage ? { usage } : {}) };
      }
      default:
        return { ...base, state: s.state, error: { code: s.code, message: s.message, upstreamRequestId: s.upstreamRequestId } };
    }
  }
}
