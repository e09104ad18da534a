// The task engine's driver for Kling tasks: one status query per task, or — for many due tasks of one
// account — the documented list query (`GET /v1/videos/<path>?pageNum&pageSize`, up to 500 a page). No store access.
// A creation whose answer was lost to a crash is found again by its external_task_id (our task id, unique per
// upstream account).
import { isObject } from '../../json/json.ts';
import { GatewayError, isGatewayError } from '../../errors/gateway-error.ts';
import type { Channel } from '../../routing/channel-registry.ts';
import type {
  CallLimit,
  PollOutcome,
  SubmitOutcome,
  TaskDriver,
  TaskRecord,
  UnconfirmedSubmit,
} from '../../tasks/types.ts';
import type { KlingClient } from './client.ts';
import { parseStoredSubmit, submitKling } from './submit.ts';
import { parseCreated, parseTaskData, type KlingTaskPath } from './tasks.ts';
import type { SubmitVia } from '../upstream.ts';

const PAGE_SIZE = 500;
/** Pages read beyond what the wanted tasks could fill: the list holds other tasks of the account too. */
const EXTRA_PAGES = 2;

export class KlingTaskDriver implements TaskDriver {
  constructor(
    private readonly client: KlingClient,
    private readonly path: KlingTaskPath,
    /**
     * Every Kling channel now: a connect-only failover may have sent the creation to another account than the stored
     * one.
     */
    private readonly klingChannels: () => readonly Channel[] = () => [],
    private readonly submitVia?: SubmitVia,
  ) {}

  /** The creation a task waiting for a parallel-task slot kept, sent now (submit.ts), failing over across channels. */
  async submitStored(task: TaskRecord, stored: unknown): Promise<SubmitOutcome | UnconfirmedSubmit> {
    const s = parseStoredSubmit(stored);
    if (!s || !this.submitVia)
      throw new GatewayError('internal_error', 'The task cannot be submitted: its stored creation is unreadable');
    return this.submitVia(task, (ch) => submitKling(this.client, ch, s, task.id));
  }

  /** Ask the stored channel, then the other Kling accounts, for our task id; null only when every one said 1203/404. */
  async recoverSubmit(task: TaskRecord, channel: Channel, limit: CallLimit): Promise<SubmitOutcome | null> {
    const others = this.klingChannels().filter((c) => c.id !== channel.id);
    for (const ch of [channel, ...others]) {
      try {
        const r = await this.client.call(
          ch,
          'GET',
          `/v1/videos/${this.path}/${encodeURIComponent(task.id)}`,
          undefined,
          limit,
        );
        return { ...parseCreated(r.data, r.upstreamRequestId), channelId: ch.id };
      } catch (e) {
        if (!(isGatewayError(e) && e.code === 'not_found')) throw e; // cannot tell now: the engine asks again later
      }
    }
    return null;
  }

  async poll(task: TaskRecord, channel: Channel, limit: CallLimit): Promise<PollOutcome> {
    if (!task.upstreamTaskId)
      return {
        state: 'unknown',
        upstreamStatus: 'missing',
        error: { code: 'task_unknown', message: 'The task has no upstream id' },
      };
    try {
      const r = await this.client.call(
        channel,
        'GET',
        `/v1/videos/${this.path}/${encodeURIComponent(task.upstreamTaskId)}`,
        undefined,
        limit,
      );
      return parseTaskData(r.data, r.upstreamRequestId);
    } catch (e) {
      // 1203 on a task we created: the upstream forgot it. Other errors back off (thrown).
      if (e instanceof GatewayError && e.code === 'not_found') {
        return {
          state: 'unknown',
          upstreamStatus: 'not_found',
          error: {
            code: 'task_unknown',
            message: 'The upstream no longer knows this task',
            upstreamRequestId: e.upstreamRequestId ?? null,
          },
        };
      }
      throw e;
    }
  }

  /**
   * Pages of the account's task list until every wanted task was seen, the list ends, or a bounded number of pages
   * was read. The list's order is not documented, so nothing is inferred from it: a task not seen is polled alone.
   */
  async pollMany(tasks: readonly TaskRecord[], channel: Channel, limit: CallLimit): Promise<Map<string, PollOutcome>> {
    const wanted = new Map<string, TaskRecord>();
    for (const t of tasks) if (t.upstreamTaskId) wanted.set(t.upstreamTaskId, t);
    const out = new Map<string, PollOutcome>();
    const maxPages = Math.ceil(wanted.size / PAGE_SIZE) + EXTRA_PAGES;
    for (let page = 1; page <= maxPages && out.size < wanted.size; page++) {
      const r = await this.client.call(
        channel,
        'GET',
        `/v1/videos/${this.path}?pageNum=${page}&pageSize=${PAGE_SIZE}`,
        undefined,
        limit,
      );
      if (!Array.isArray(r.data)) throw new GatewayError('upstream_error', 'The upstream task list answer has no list');
      for (const item of r.data) {
        const id = isObject(item) && typeof item.task_id === 'string' ? item.task_id : null;
        const t = id ? wanted.get(id) : undefined;
        if (!t || !id) continue;
        // One item the gateway cannot read (a status it does not know) leaves that task to its own status query,
        // not the whole account's batch to back off.
        try {
          out.set(id, parseTaskData(item, r.upstreamRequestId));
        } catch {}
      }
      if (r.data.length < PAGE_SIZE) break;
    }
    return out;
  }
}
