// The task engine's driver for Kling tasks: one status query per poll, no store access. A creation whose answer
// was lost to a crash is found again by its external_task_id (our task id, unique per upstream account).
import { GatewayError, isGatewayError } from '../../errors/gateway-error.ts';
import type { ModeTier } from '../../metering/types.ts';
import type { Channel } from '../../routing/channel-registry.ts';
import type { PollOutcome, SubmitOutcome, TaskDriver, TaskRecord } from '../../tasks/types.ts';
import type { KlingClient } from './client.ts';
import { parseCreated, parseTaskData, type KlingTaskPath } from './tasks.ts';

export class KlingTaskDriver implements TaskDriver {
  constructor(
    private readonly client: KlingClient,
    private readonly path: KlingTaskPath,
    /** Every Kling channel now: a connect-only failover may have sent the creation to another account than the stored one. */
    private readonly klingChannels: () => readonly Channel[] = () => [],
  ) {}

  /** Ask the stored channel, then the other Kling accounts, for our task id; null only when every one said 1203/404. */
  async recoverSubmit(task: TaskRecord, channel: Channel, signal: AbortSignal): Promise<SubmitOutcome | null> {
    const others = this.klingChannels().filter((c) => c.id !== channel.id);
    for (const ch of [channel, ...others]) {
      try {
        const r = await this.client.call(ch, 'GET', `/v1/videos/${this.path}/${encodeURIComponent(task.id)}`, undefined, signal);
        return { ...parseCreated(r.data, r.upstreamRequestId), channelId: ch.id };
      } catch (e) {
        if (!(isGatewayError(e) && e.code === 'not_found')) throw e; // cannot tell now: the engine asks again later
      }
    }
    return null;
  }

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
