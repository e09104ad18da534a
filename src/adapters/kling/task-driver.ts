// The task engine's driver for Kling tasks: one status query per poll, no store access.
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ModeTier } from '../../metering/types.ts';
import type { Channel } from '../../routing/channel-registry.ts';
import type { PollOutcome, TaskDriver, TaskRecord } from '../../tasks/types.ts';
import type { KlingClient } from './client.ts';
import { parseTaskData, type KlingTaskPath } from './tasks.ts';

export class KlingTaskDriver implements TaskDriver {
  constructor(
    private readonly client: KlingClient,
    private readonly path: KlingTaskPath,
  ) {}

  async poll(task: TaskRecord, channel: Channel, signal: AbortSignal): Promise<PollOutcome> {
    if (!task.upstreamTaskId) return { state: 'unknown', upstreamStatus: 'missing', error: { code: 'task_unknown', message: 'The task has no upstream id' } };
    const tier: ModeTier = task.tier === 'pro' ? 'pro' : 'std';
    try {
      const r = await this.client.call(channel, 'GET', `/v1/videos/${this.path}/${encodeURIComponent(task.upstreamTaskId)}`, undefined, signal);
      return parseTaskData(r.data, tier, r.upstreamRequestId);
    } catch (e) {
      // 1203 on a task we created: the upstream forgot it. Other errors back off (thrown).
      if (e instanceof GatewayError && e.code === 'not_found') {
        return { state: 'unknown', upstreamStatus: 'not_found', error: { code: 'task_unknown', message: 'The upstream no longer knows this task', upstreamRequestId: e.upstreamRequestId ?? null } };
      }
      throw e;
    }
  }
}
