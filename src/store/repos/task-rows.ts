// How a tasks row becomes a TaskRecord (whole, or as the poller reads it) and how a transition's patch becomes columns.
import { upstreamId } from '../../errors/echo.ts';
import { sql, type Selectable, type Updateable } from 'kysely';
import type { Usage } from '../../vocabulary/usage.ts';
import type { TaskError, TaskFamily, TaskIdentity, TaskRecord, TaskState } from '../../tasks/vocabulary.ts';
import type { Keyset } from '../keyset.ts';
import { parseJson } from '../json.ts';
import type { TasksTable } from '../schema.ts';

export type TaskRow = Selectable<TasksTable>;

/** The stored `tasks.family` values: 'a' (/vidx/v1) and 'b' (/v1), kept from the first schema. */
const STORED_FAMILY: Record<TaskFamily, string> = { vidx: 'a', v1: 'b' };
export const storedFamily = (f: TaskFamily): string => STORED_FAMILY[f];
const familyOfStored = (s: string): TaskFamily => (s === 'a' ? 'vidx' : 'v1');
const num = (v: number | null): number | null => (v === null ? null : Number(v));

/** A row as read, or as written by the insert (which leaves `deleted_at` out: a new task is not deleted). */
export function toTaskRecord(r: Omit<TaskRow, 'deleted_at'> & { deleted_at?: number | null }): TaskRecord {
  return {
    id: r.id,
    family: familyOfStored(r.family),
    kind: r.kind,
    tokenId: r.token_id,
    model: r.model,
    billingModel: r.billing_model,
    upstreamModel: r.upstream_model,
    channelId: r.channel_id,
    upstreamTaskId: r.upstream_task_id,
    state: r.state as TaskState,
    upstreamStatus: r.upstream_status,
    progress: r.progress,
    request: parseJson(r.request),
    result: parseJson(r.result),
    usage: parseJson<Usage>(r.usage),
    error: parseJson<TaskError>(r.error),
    externalTaskId: r.external_task_id,
    callbackUrl: r.callback_url,
    sessionId: r.session_id,
    requestId: r.request_id,
    upstreamRequestId: r.upstream_request_id,
    tier: r.tier,
    holdAmount: Number(r.hold_amount),
    nextPollAt: Number(r.next_poll_at),
    pollAttempts: Number(r.poll_attempts),
    leaseOwner: r.lease_owner,
    leaseUntil: num(r.lease_until),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    finishedAt: num(r.finished_at),
    checkedAt: num(r.checked_at ?? null),
    slotQueue: r.slot_queue ?? null,
    deletedAt: num(r.deleted_at ?? null),
  };
}

/**
 * The columns a poll needs: not the request snapshot (the largest), which no driver reads, nor a waiting creation's
 * body.
 */
export const POLL_COLUMNS = sql.raw(
  'id, family, kind, token_id, model, billing_model, upstream_model, channel_id, upstream_task_id, state, upstream_status, progress, ' +
    'result, usage, error, external_task_id, callback_url, session_id, request_id, upstream_request_id, tier, hold_amount, next_poll_at, ' +
    'poll_attempts, lease_owner, lease_until, created_at, updated_at, finished_at, checked_at, slot_queue',
);

/**
 * A claimed task as the poller sees it: no request snapshot, and the JSON columns parsed only when read (an
 * open task's `usage` is the hold estimate, needed only when the task succeeds without reported usage).
 */
export function toPollRecord(r: Omit<TaskRow, 'request' | 'submit_body'>): TaskRecord {
  const t = toTaskRecord({
    ...r,
    request: 'null',
    usage: null,
    result: null,
    error: null,
    submit_body: null,
  } as TaskRow);
  let usage: Usage | null | undefined;
  let result: unknown;
  let error: TaskError | null | undefined;
  Object.defineProperties(t, {
    usage: {
      enumerable: true,
      configurable: true,
      get: () => (usage === undefined ? (usage = parseJson<Usage>(r.usage)) : usage),
      set: (v: Usage | null) => (usage = v),
    },
    result: {
      enumerable: true,
      configurable: true,
      get: () => (result === undefined ? (result = parseJson(r.result)) : result),
      set: (v: unknown) => (result = v),
    },
    error: {
      enumerable: true,
      configurable: true,
      get: () => (error === undefined ? (error = parseJson<TaskError>(r.error)) : error),
      set: (v: TaskError | null) => (error = v),
    },
  });
  return t;
}

/** Fields a transition may set. */
export interface TaskPatch {
  state?: TaskState;
  upstreamTaskId?: string | null;
  upstreamStatus?: string | null;
  progress?: number | null;
  result?: unknown;
  usage?: Usage | null;
  error?: TaskError | null;
  upstreamRequestId?: string | null;
  holdAmount?: number;
  channelId?: string;
  nextPollAt?: number;
  pollAttempts?: number;
  leaseOwner?: string | null;
  leaseUntil?: number | null;
  finishedAt?: number | null;
  /** The queue the task is counted in (set to the account that took the creation, after a failover). */
  slotQueue?: string | null;
  /** Only ever cleared here (once submitted or ended): it is written with the waiting row. */
  submitBody?: null;
}

export function patchRow(p: TaskPatch, now: number): Updateable<TasksTable> {
  const o: Record<string, unknown> = { updated_at: now };
  if (p.state !== undefined) o.state = p.state;
  if (p.upstreamTaskId !== undefined) o.upstream_task_id = p.upstreamTaskId;
  if (p.upstreamStatus !== undefined) o.upstream_status = p.upstreamStatus;
  if (p.progress !== undefined) o.progress = p.progress;
  if (p.result !== undefined) o.result = p.result === null ? null : JSON.stringify(p.result);
  if (p.usage !== undefined) o.usage = p.usage === null ? null : JSON.stringify(p.usage);
  if (p.error !== undefined) o.error = p.error === null ? null : JSON.stringify(p.error);
  if (p.upstreamRequestId !== undefined) o.upstream_request_id = upstreamId(p.upstreamRequestId);
  if (p.holdAmount !== undefined) o.hold_amount = p.holdAmount;
  if (p.channelId !== undefined) o.channel_id = p.channelId;
  if (p.nextPollAt !== undefined) o.next_poll_at = p.nextPollAt;
  if (p.pollAttempts !== undefined) o.poll_attempts = p.pollAttempts;
  if (p.leaseOwner !== undefined) o.lease_owner = p.leaseOwner;
  if (p.leaseUntil !== undefined) o.lease_until = p.leaseUntil;
  if (p.finishedAt !== undefined) o.finished_at = p.finishedAt;
  if (p.slotQueue !== undefined) o.slot_queue = p.slotQueue;
  if (p.submitBody !== undefined) o.submit_body = null;
  return o as Updateable<TasksTable>;
}

export interface ListTasksFilter {
  family?: TaskFamily;
  /** One kind, or any of several (a family A path whose tasks live at more than one upstream endpoint). */
  kind?: string | readonly string[];
  limit?: number;
  /** Only tasks after this one in the newest-first order (paging by cursor). */
  after?: Keyset;
  /** Rows to skip (paging by page number). */
  offset?: number;
}

/** The operator's list of every token's tasks (GET /admin/tasks). */
export interface AdminTasksFilter {
  state?: TaskState | undefined;
  kind?: string | undefined;
  tokenId?: string | undefined;
  model?: string | undefined;
  /** created_at bounds: inclusive, exclusive. */
  since?: number | undefined;
  until?: number | undefined;
  /** Only tasks after this one in the newest-first order (created_at, then id). */
  after?: Keyset | undefined;
  limit: number;
}

/** A task as it is first written (TasksRepo.insert). */
export interface NewTaskRow extends TaskIdentity {
  id: string;
  channelId: string;
  estimate: Usage;
  externalTaskId: string | null;
  callbackUrl: string | null;
  sessionId: string | null;
  /** The submit deadline: a `submitting` row still there after it is failed by the poller. */
  nextPollAt: number;
  leaseOwner: string;
  leaseUntil: number;
  /** A task that waits for a parallel-task slot (slot-queue.ts): its queue and upstream creation (JSON). */
  waiting?: { slotQueue: string; submitBody: string };
}
