// Creating an async task, for /v1/videos and family A alike: the estimate held through the task engine, then the
// creation sent connect-only through the metered upstream call (a creation the upstream may have accepted is never
// sent twice). Also the send of a task that waited in the gateway for a parallel-task slot (tasks/slot-queue.ts):
// no client request is there any more, so it is not metered here (the task's hold is) — only routed.
import { randomUUID } from 'node:crypto';
import type { SubmitVia } from '../adapters/upstream.ts';
import type { ModelEntry } from '../catalogue/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Channel } from '../routing/channel-registry.ts';
import { withFailover, type FailoverOptions } from '../routing/failover.ts';
import type { TaskEngine } from '../tasks/engine.ts';
import type { CreateTaskInput, SubmitOutcome, TaskFamily, TaskRecord, UnconfirmedSubmit } from '../tasks/types.ts';
import { tokenTenant } from '../auth/principal.ts';
import { principalOf, type CallContext } from './call.ts';
import { videoEstimate, videoHold, type VideoAsk } from './video-usage.ts';
import type { GatewayDeps } from './deps.ts';
import { upstreamCall, type UpstreamCallDeps } from './upstream-call.ts';

export interface TaskSubmitDeps extends UpstreamCallDeps {
  readonly tasks: TaskEngine;
}

/** Our id for a new task (`video_…` on /v1, `task_…` on family A): never the upstream's. */
export const newTaskId = (prefix: 'video' | 'task'): string => `${prefix}_${randomUUID().replace(/-/g, '')}`;

export interface NewTask {
  id: string;
  family: TaskFamily;
  /** The driver's kind. */
  kind: string;
  model: { publicName: string; billingModel: string; upstreamModel: string; entry: ModelEntry };
  channels: readonly Channel[];
  /** Public request fields kept with the task (shown back, used in callbacks). */
  request: unknown;
  /**
   * The requested size, held as the estimate: seconds at a resolution (/v1) or a mode (family A), with what else its
   * price depends on (sound, voice, shots, input seconds).
   */
  size: VideoAsk & { seconds: number };
  externalTaskId?: string | null;
  callbackUrl?: string | null;
  sessionId?: string | null;
  /** The parallel-task queue of the first channel, and the creation kept while the task waits for a slot there. */
  slot?: (first: Channel) => { queue: string; stored: unknown };
  /** The creation call on one channel. */
  send(channel: Channel, taskId: string): Promise<SubmitOutcome | UnconfirmedSubmit>;
}

/** Hold the task's estimate and submit it (through the task engine); the charge comes at success (charge.ts). */
export async function submitTask(deps: TaskSubmitDeps, call: CallContext, t: NewTask): Promise<TaskRecord> {
  const first = t.channels[0];
  if (!first) throw new GatewayError('no_channel', 'No upstream channel is available for this model');
  const { entry } = t.model;
  const estimate = videoEstimate(entry, t.size);
  const hold = videoHold(entry, estimate);
  const input: CreateTaskInput = {
    id: t.id,
    family: t.family,
    kind: t.kind,
    tokenId: principalOf(call).tokenId,
    billing: principalOf(call).billing,
    model: t.model.publicName,
    billingModel: t.model.billingModel,
    upstreamModel: t.model.upstreamModel,
    channel: first,
    request: t.request,
    requestId: call.id,
    tier: t.size.mode ?? t.size.resolution ?? null,
    estimate,
    externalTaskId: t.externalTaskId ?? null,
    callbackUrl: t.callbackUrl ?? null,
    sessionId: t.sessionId ?? null,
    // The hold is the quota step.
    submit: (taskId) =>
      upstreamCall(
        deps,
        call,
        { entry, upstreamModel: t.model.upstreamModel, retry: 'connect-only', quota: 'held', channels: t.channels },
        (ch) => t.send(ch, taskId),
      ),
  };
  if (hold) input.hold = hold;
  if (t.slot) input.slot = t.slot(first);
  return deps.tasks.create(input);
}

export function taskSubmitVia(deps: Pick<GatewayDeps, 'catalogue' | 'channels' | 'breakers' | 'metrics'>): SubmitVia {
  return async (task, attempt) => {
    const entry = deps.catalogue.resolve(task.model)?.entry;
    let channels = entry ? deps.channels.forModel(entry, task.upstreamModel) : [];
    // This process (the poller thread, say) may not have heard yet of a channel made a moment ago: it reads the
    // channels again before it says there is none.
    if (entry && channels.length === 0) {
      await deps.channels.reload();
      channels = deps.channels.forModel(entry, task.upstreamModel);
    }
    const opts: FailoverOptions = {
      policy: 'connect-only',
      model: task.model,
      onAttempt: deps.metrics.upstreamAttempt,
    };
    // Submitted later, without its caller: the refusal counts for the task's token (entitlement-marks.ts).
    if (entry)
      opts.onNotEntitled = (ch) => deps.channels.markNotEntitled(ch, task.upstreamModel, tokenTenant(task.tokenId));
    return withFailover(channels, deps.breakers, attempt, opts);
  };
}
