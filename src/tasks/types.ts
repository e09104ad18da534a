// The task engine's public types: the pluggable upstream driver and what it answers; the task record, its states and
// events are the task vocabulary (vocabulary.ts), re-exported here.
// A driver only talks to the upstream (like an adapter); the engine owns the store, leases,
// compare-and-set transitions, back-off, max age and metering (settle / release).
import type { Billing } from '../metering/billing.ts';
import type { TaskRef, Usage } from '../metering/types.ts';
import type { Channel } from '../routing/channel-registry.ts';
import type { TaskError, TaskIdentity, TaskRecord } from './vocabulary.ts';

export {
  isTerminal,
  OPEN_STATES,
  STICKY_STATES,
  TASK_STATES,
  TERMINAL_STATES,
  type TaskError,
  type TaskEvent,
  type TaskEventInput,
  type TaskEventKind,
  type TaskFamily,
  type TaskIdentity,
  type TaskRecord,
  type TaskState,
} from './vocabulary.ts';

/** What one upstream status query said. `unknown` = the upstream no longer knows the task. */
export interface PollOutcome {
  state: 'queued' | 'in_progress' | 'succeeded' | 'failed' | 'cancelled' | 'unknown';
  upstreamStatus: string;
  progress?: number;
  /** Stored as tasks.result (JSON). */
  result?: unknown;
  /** What the upstream reported of a success's size; core/video-usage.ts turns it into the charge (absent: the estimate). */
  reported?: ReportedUsage;
  error?: TaskError;
  upstreamRequestId?: string | null;
}

/**
 * A finished task's size as the upstream said it, nothing decided: which seconds are billed (the price basis), at
 * which tier, and what a success reporting nothing billable is charged are core/video-usage.ts's rule (finishedTaskUsage).
 */
export interface ReportedUsage {
  /** Output seconds, summed over the task's videos (each driver maps its upstream's fields). */
  outputSeconds?: number | null;
  /** Input seconds (an edit model's input video). */
  inputSeconds?: number | null;
  /** A total the upstream reports (input + output, for edit models). */
  totalSeconds?: number | null;
  /** Output resolution as reported (the short side: 480, 720, 1080, 2160). */
  resolution?: number | null;
  /** Whether the video came with sound, where the upstream says. */
  sound?: boolean | null;
  /** Shots made, where the upstream says. */
  shots?: number | null;
  /** What the upstream deducted for the task in its own units (Kling `final_unit_deduction`): kept, not priced. */
  upstreamUnits?: number | null;
  /** Videos made (DashScope `video_count`). */
  videoCount?: number | null;
}

/** What the upstream answered to the creation call. */
export interface SubmitOutcome {
  upstreamTaskId: string;
  upstreamRequestId?: string | null;
  upstreamStatus?: string;
  state?: 'queued' | 'in_progress';
  /** Set when the submit failed over to another channel than the one passed in. */
  channelId?: string;
}

/**
 * A creation whose answer was lost and whose lookup could not tell whether the upstream took it (the lookup itself
 * failed). The task stays `submitting` and the lost-submit recovery (lost-submit.ts) settles it: found upstream →
 * adopted (charged once, at success), certainly absent → failed uncharged. Never deleted: the upstream may be
 * running it.
 */
export interface UnconfirmedSubmit {
  unconfirmed: true;
  /** The channel the creation went to. */
  channelId: string;
  upstreamRequestId?: string | null;
}

/**
 * How long one upstream query of a driver may wait: for the answer to start, and then between its chunks (the HTTP
 * client's time limits, swept periodically). Not a timer and an AbortSignal per query: the poller makes hundreds of
 * queries a second, and each AbortSignal.timeout lived on in the timer list for the whole limit.
 */
export interface CallLimit {
  readonly timeoutMs: number;
}

export interface TaskDriver {
  /**
   * Query the upstream for one task. Must not touch the store. Throw (GatewayError) on transport/5xx: the engine backs
   * off.
   */
  poll(task: TaskRecord, channel: Channel, limit: CallLimit): Promise<PollOutcome>;
  /**
   * A task left `submitting` (the gateway stopped before storing the creation's answer): find it upstream by an id
   * the creation carried (our task id as the upstream's external id). The creation is never sent again.
   * Returns the creation outcome when found, null when the upstream certainly has no such task; throws when it
   * cannot tell now (the engine asks again later). Absent: the upstream cannot be asked, the task fails uncharged.
   */
  recoverSubmit?(task: TaskRecord, channel: Channel, limit: CallLimit): Promise<SubmitOutcome | null>;
  /**
   * Ask the upstream to stop the task, where it offers that (best-effort: the gateway's outcome is already decided).
   */
  cancel?(task: TaskRecord, channel: Channel, limit: CallLimit): Promise<void>;
  /**
   * Send the creation a task waiting for a parallel-task slot kept (slot-queue.ts), with the same guarantees as a
   * creation request's submit: connect-only failover, a lost answer looked up by our task id. Throws (GatewayError)
   * when refused. Absent: such tasks cannot be kept waiting for this kind.
   */
  submitStored?(task: TaskRecord, stored: unknown): Promise<SubmitOutcome | UnconfirmedSubmit>;
  /*
   * "Many tasks, few queries" is two capabilities, not one, because they answer different questions: `pollMany` is
   * the poller's batch (batch-poll.ts): the due tasks it names, answered with full outcomes (results, usage);
   * `listPage` is the list rounds' read (list-rounds.ts): the account's whole recent list by creation time, statuses
   * only, so that tasks whose status did not change cost no query at all and only finished ones are asked about alone.
   * A driver offers either, both or neither, as its upstream documents such queries.
   */
  /**
   * Optional: ask about many tasks of one channel with few upstream queries (a list endpoint). Answers by upstream
   * task id; a task missing from the map is polled alone. Only where the upstream documents such a query.
   */
  pollMany?(tasks: readonly TaskRecord[], channel: Channel, limit: CallLimit): Promise<Map<string, PollOutcome>>;
  /**
   * The upstream account whose query rate this driver's queries draw on (tasks/list-rounds.ts, limits/query-rate.ts).
   * Absent: its queries draw on no query rate.
   */
  queryAccount?(channel: Channel): string;
  /**
   * The page size `listPage` asks for: a page's tasks past it are not the list's (list-rounds.ts keeps at most this
   * many).
   */
  listPageSize?: number;
  /** The listed statuses of a task not yet finished, and the state each means; any other listed status is an ending. */
  listOpenStatuses?: Readonly<Record<string, 'queued' | 'in_progress'>>;
  /**
   * One page of the account's task list: the status of each task created at or after `createdFrom` (ms). With it, an
   * account with many open tasks is followed by list rounds (tasks/list-rounds.ts) instead of one query per task.
   */
  listPage?(
    channel: Channel,
    createdFrom: number,
    pageNo: number,
    limit: CallLimit,
  ): Promise<{ tasks: Array<{ upstreamTaskId: string; status: string }>; totalPages: number }>;
}

/**
 * What an operator's cancel did: `cancelled`; `not_open` (already finished, or still being submitted); `finishing`
 * (being charged).
 */
export type CancelOutcome = 'cancelled' | 'not_open' | 'finishing';

export interface CreateTaskInput extends TaskIdentity {
  channel: Channel;
  /** Estimated usage (e.g. requested seconds × tier): held, and charged at a success that reports no usage. */
  estimate: Usage;
  /** A larger usage to hold instead, when the estimate can fall short of the charge (core/video-usage.ts videoHold). */
  hold?: Usage;
  externalTaskId?: string | null;
  callbackUrl?: string | null;
  sessionId?: string | null;
  /** Our id; the engine makes one when absent. */
  id?: string;
  /** The creator's account, price group and budgets, held against with the token (null or absent: the token alone). */
  billing?: Billing | null;
  /**
   * The task is counted in a parallel-task queue (upstream account and model version: slot-queue.ts): it waits in the
   * gateway, hold placed, while its queue is blocked, and `stored` (what the driver's submitStored sends) is kept
   * until it is submitted.
   */
  slot?: { queue: string; stored: unknown };
  /**
   * Calls the upstream creation endpoint. Throwing fails the creation: the hold is released, the row deleted, the
   * error rethrown. An UnconfirmedSubmit leaves the task `submitting` for the lost-submit recovery.
   */
  submit(taskId: string, channel: Channel): Promise<SubmitOutcome | UnconfirmedSubmit>;
}

/** The task as the meter knows it (hold, settle, release). */
export const refOf = (t: TaskRecord): TaskRef => ({
  taskId: t.id,
  tokenId: t.tokenId,
  model: t.model,
  billingModel: t.billingModel,
  requestId: t.requestId,
  upstreamRequestId: t.upstreamRequestId,
});
