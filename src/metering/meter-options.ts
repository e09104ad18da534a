// The options of the store-backed meter (meter.ts), set in the composition root.
import type { FlushTick } from '../store/group-commit.ts';
import type { SqliteBatchWriter } from '../store/sqlite-batch-writer.ts';
import type { AllowanceOptions } from './allowances.ts';
import type { LedgerRow } from './ledger-row.ts';
import type { PriceGroups } from '../pricing/price-groups.ts';
import type { PeriodRule } from './balances/rows.ts';
import type { LimitRefused } from './refusal.ts';

export interface StoreMeterOptions {
  /** SQLite: write batches through the store's prepared statements (store.batchWriter) instead of Kysely. */
  batchWriter?: SqliteBatchWriter | null;
  /**
   * Group-commit interval of chargeSyncDeferred (ms) on its own timer; with `tick`, the tick's interval applies
   * instead.
   */
  flushIntervalMs?: number;
  /** A flush timer shared with the request log's queue (group-commit.ts): both hand their rows over in one turn. */
  tick?: FlushTick;
  /** Rows per batch transaction. */
  maxBatch?: number;
  /** Answers wait for the charges' writer once the oldest charge queued is this old (ms): the crash window's bound. */
  maxQueueAgeMs?: number;
  /** Reports a failed batch write (the rows stay queued and are retried). */
  onError?: (e: unknown, queued: number) => void;
  /** Charges the store refused while others were written (group-commit.ts): they leave the queue; report them. */
  onRejected?: (rows: LedgerRow[], e: unknown) => void;
  /** A charge was clamped to MAX_CHARGE (absurd reported usage): the operator's audit line. */
  onClamped?: (row: LedgerRow) => void;
  /** The price groups accounts are charged by (none: every charge at list price). */
  priceGroups?: Pick<PriceGroups, 'get'>;
  /** The clock of budget periods and hold times (tests set it). */
  now?: () => number;
  /** An allowance could not be placed or given back (the call reserves on its own; the reaper gives it back). */
  onAllowanceError?: (e: unknown) => void;
  /** The budget periods' calendars (balances/rows.ts BUDGET_PERIOD_RULES when absent). */
  budgetPeriods?: Readonly<Record<string, PeriodRule>>;
  /** A call's or task's hold was refused by a limit (refusal.ts): the limit-reached alert. Must not throw. */
  onRefused?: (r: LimitRefused) => void;
  /** Busy tokens reserve from allowances (allowances.ts); false: every call reserves on its own. */
  allowances?: AllowanceOptions | false;
}
