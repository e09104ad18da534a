// The task engine's driver for Kling tasks: one status query per task, or — for many due tasks of one
// account — the documented list query (`GET /v1/videos/<path>?pageNum&pageSize`, up to 500 a page). No store access.
import { isObject } from '../../contracts/fields.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ModeTier } from '../../metering/types.ts';
import type { Channel } from '../../routing/channel-registry.ts';
import type { PollOutcome, TaskDriver, TaskRecord } from '../../tasks/types.ts';
import type { KlingClient } from './client.ts';
import { parseTaskData, type KlingTaskPath } from './tasks.ts';

const PAGE_SIZE = 500;
/** Pages read beyond what the wanted tasks could fill: the list holds other tasks of the account too. */
const EXTRA_PAGES = 2;

const tierOf = (task: TaskRecord): ModeTier => (task.tier === 'pro' ? 'pro' : 'std');

export class KlingTaskDriver implements TaskDriver {
  constructor(
    private readonly client: KlingClient,
    private readonly path: KlingTaskPath,
  ) {}

  async poll(task: TaskRecord, channel: Channel, signal: AbortSignal): Promise<PollOutcome> {
    if (!task.upstreamTaskId) return { state: 'unknown', upstreamStatus: 'missing', error: { code: 'task_unknown', message: 'The task has no upstream id' } };
    try {
      const r = await this.client.call(channel, 'GET', `/v1/videos/${this.path}/${encodeURIComponent(task.upstreamTaskId)}`, undefined, signal);
      return parseTaskData(r.data, tierOf(task), r.upstreamRequestId);
    } catch (e) {
      // 1203 on a task we created: the upstream forgot it. Other errors back off (thrown).
      if (e instanceof GatewayError && e.code === 'not_found') {
        return { state: 'unknown', upstreamStatus: 'not_found', error: { code: 'task_unknown', message: 'The upstream no longer knows this task', upstreamRequestId: e.upstreamRequestId ?? null } };
      }
      throw e;
    }
  }

  /**
   * Pages of the account's task list until every wanted task was seen, the list ends, or a bounded number of pages
   * was read. The list's order is not documented, so nothing is inferred from it: a task not seen is polled alone.
   */
  async pollMany(tasks: readonly TaskRecord[], channel: Channel, signal: AbortSignal): Promise<Map<string, PollOutcome>> {
    const wanted = new Map<string, TaskRecord>();
    for (const t of tasks) if (t.upstreamTaskId) wanted.set(t.upstreamTaskId, t);
    const out = new Map<string, PollOutcome>();
    const maxPages = Math.ceil(wanted.size / PAGE_SIZE) + EXTRA_PAGES;
    for (let page = 1; page <= maxPages && out.size < wanted.size; page++) {
      const r = await this.client.call(channel, 'GET', `/v1/videos/${this.path}?pageNum=${page}&pageSize=${PAGE_SIZE}`, undefined, signal);
      if (!Array.isArray(r.data)) throw new GatewayError('upstream_error', 'The upstream task list answer has no list');
      for (const item of r.data) {
        const id = isObject(item) && typeof item.task_id === 'string' ? item.task_id : null;
        const t = id ? wanted.get(id) : undefined;
        if (t && id) out.set(id, parseTaskData(item, tierOf(t), r.upstreamRequestId));
      }
      if (r.data.length < PAGE_SIZE) break;
    }
    return out;
  }
}
