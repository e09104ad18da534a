// The task vocabulary: the stored task record, its states and its timeline's events. The one tasks/ module the store
// may import, so it imports nothing but value types.
import type { Usage } from '../vocabulary/usage.ts';

/** Which API the task belongs to: /vidx/v1 (family A) or /v1 (family B). Stored as 'a' | 'b' (repos/tasks.ts maps). */
export type TaskFamily = 'vidx' | 'v1';

/**
 * Non-terminal: waiting (held in the gateway for a free parallel-task slot of its upstream account: slot-queue.ts),
 * submitting (row written, upstream call in flight), queued, in_progress.
 */
export type TaskState = 'waiting' | 'submitting' | 'queued' | 'in_progress' | 'succeeded' | 'failed' | 'cancelled';
/** In this order in the SQL that lists them (the due index's predicate must read the same). */
export const OPEN_STATES: readonly TaskState[] = ['waiting', 'submitting', 'queued', 'in_progress'];
/**
 * The open states in which the upstream has the task and only polls follow: their poll lease is sticky (repos/tasks.ts
 * claimDue).
 */
export const STICKY_STATES: readonly TaskState[] = ['queued', 'in_progress'];
export const TERMINAL_STATES: readonly TaskState[] = ['succeeded', 'failed', 'cancelled'];
export const isTerminal = (s: TaskState): boolean => TERMINAL_STATES.includes(s);
/** Every state, open ones first: the admin API's filter and the OpenAPI enums read this list. */
export const TASK_STATES: readonly TaskState[] = [...OPEN_STATES, ...TERMINAL_STATES];

/** Sanitised error kept on a failed task (never an upstream key, host or internal URL). */
export interface TaskError {
  code: string;
  /** Our own words (shown to the client). */
  message: string;
  upstreamRequestId?: string | null;
  /**
   * The upstream's own words (its failure code and message): for operators only — logged, and in the admin task view.
   */
  upstreamMessage?: string;
}

export interface TaskRecord {
  id: string;
  family: TaskFamily;
  /** Driver key: one of an upstream's task kinds (Upstream.taskKinds). */
  kind: string;
  tokenId: string;
  model: string;
  billingModel: string;
  upstreamModel: string;
  channelId: string;
  upstreamTaskId: string | null;
  state: TaskState;
  upstreamStatus: string | null;
  progress: number | null;
  /** Request snapshot (JSON) — whatever the route wants to show back later. */
  request: unknown;
  /** Driver's result (JSON), e.g. {url, expiresAt}. */
  result: unknown;
  /** The hold estimate until terminal success, then the provider-reported usage. */
  usage: Usage | null;
  error: TaskError | null;
  externalTaskId: string | null;
  callbackUrl: string | null;
  sessionId: string | null;
  requestId: string;
  upstreamRequestId: string | null;
  tier: string | null;
  holdAmount: number;
  nextPollAt: number;
  pollAttempts: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  /** When the upstream was last asked about the task (claim or lease time); null before the first poll. */
  checkedAt: number | null;
  /** The parallel-task queue (upstream account and model version) it is counted in; null: none (slot-queue.ts). */
  slotQueue: string | null;
  /** When its owner deleted it (a /v1 video): hidden from them, kept for the operator. Absent or null: not deleted. */
  deletedAt?: number | null;
}

/** The identity of a task as given at creation (shared by the engine's input and the repo's new row). */
export type TaskIdentity = Pick<
  TaskRecord,
  'family' | 'kind' | 'tokenId' | 'model' | 'billingModel' | 'upstreamModel' | 'request' | 'requestId' | 'tier'
>;

// A task's timeline (events.ts): the events recorded with its changes.

/**
 * - created: the row is written (→ submitting, or → waiting); waiting: the task waits in the gateway for a free
 *   parallel-task slot of its upstream account (detail: why); slot: it took a free slot of its queue (→ submitting);
 *   submitted: the upstream took it (→ queued / in_progress, with its
 *   task id and the amount held); recovered: a creation whose answer was lost was found upstream (lost-submit.ts);
 * - status: the upstream's status changed (the poller saw it change; the gateway state may stay the same);
 * - succeeded / failed / cancelled: the outcome;
 * - charged: the task's ledger line (amount, ledger id); hold_released: the hold went back to the token (amount).
 */
export type TaskEventKind =
  | 'created'
  | 'waiting'
  | 'slot'
  | 'submitted'
  | 'recovered'
  | 'status'
  | 'succeeded'
  | 'failed'
  | 'cancelled'
  | 'charged'
  | 'hold_released';

/**
 * An event to record with a task change. A state event's from/to states and upstream status are the change's own;
 * `charged` and `hold_released` are read from the ledger line / hold row in the same transaction, so they are
 * recorded only when the money really moved (no ledger line: nothing billable; a hold not released: no event).
 */
export type TaskEventInput =
  | {
      kind:
        | 'created'
        | 'waiting'
        | 'slot'
        | 'submitted'
        | 'recovered'
        | 'status'
        | 'succeeded'
        | 'failed'
        | 'cancelled';
      detail?: string | null;
      amount?: number | null;
    }
  | { kind: 'charged'; ledgerKey: string }
  | { kind: 'hold_released' };

/** One recorded event. */
export interface TaskEvent {
  id: number;
  taskId: string;
  at: number;
  kind: TaskEventKind;
  from: TaskState | null;
  to: TaskState | null;
  upstreamStatus: string | null;
  /** Micro-units: the charge, the hold released, or (submitted) the amount held. */
  amount: number | null;
  ledgerId: number | null;
  detail: string | null;
}
