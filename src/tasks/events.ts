// A task's timeline: what the engine records with each change of a task (store/repos/task-events.ts writes the rows in
// the transaction of the change). A poll that finds nothing changed records nothing; a change of progress alone is
// not an event.
import type { TaskState } from './types.ts';

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
      kind: 'created' | 'waiting' | 'slot' | 'submitted' | 'recovered' | 'status' | 'succeeded' | 'failed' | 'cancelled';
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

/** The detail of an upstream status change: old → new. */
export const statusDetail = (from: string | null, to: string | null): string => `upstream ${from ?? '—'} → ${to ?? '—'}`;

/** The detail of a failure: its error code and message, and the upstream's own words (the timeline is the operators'). */
export const errorDetail = (e: { code: string; message: string; upstreamMessage?: string }): string =>
  `${e.code}: ${e.message}${e.upstreamMessage ? ` (upstream: ${e.upstreamMessage})` : ''}`;
