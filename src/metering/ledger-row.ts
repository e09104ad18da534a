// One ledger row as the meter builds it, and as the two write paths take it: Kysely values and the SQLite
// batch writer's tuple (the same columns, compared by test/store/write-paths.test.ts).
import { clip } from '../store/clip.ts';
import { jsonText, jsonTextOnce } from '../json/json-text.ts';
import type { LedgerTuple } from '../store/sqlite-row-tuples.ts';
import type { Billing } from './billing.ts';
import { flatRows, rowsOf, targetOfRows, type PeriodRule } from './balances/rows.ts';
import type { AllowanceRef, Charge, LedgerRow, SyncChargeInput, TaskRef } from './types.ts';

export type { AllowanceRef, LedgerRow } from './types.ts';

/** The ledger key of a task's one charge (settled at success): exactly once per task. */
export const taskChargeKey = (taskId: string): string => `${taskId}:success`;

/**
 * The rows a charge queued without a hold of its own lands on: the caller's account and its budget rows of now. It
 * takes nothing from a hold (covered: 0); both write paths land it as an allowance's charge.
 */
export function billingAllowance(
  input: SyncChargeInput,
  billing: Billing | null,
  now: number,
  periods?: Readonly<Record<string, PeriodRule>>,
): AllowanceRef {
  const key = input.idempotencyKey ?? input.requestId;
  const target = targetOfRows(rowsOf(input.tokenId, billing, now, periods), billing?.priceGroup ?? null);
  return { key, target, tuple: { allowance: key, accountId: target.accountId, rows: flatRows(target) } };
}

/** A task's one charge (key taskChargeKey), on its token and the account its hold named. */
export function taskChargeRow(
  task: TaskRef,
  accountId: string | null,
  kind: string,
  charge: Charge,
  now: number,
): LedgerRow {
  return {
    key: taskChargeKey(task.taskId),
    tokenId: task.tokenId,
    accountId,
    model: task.model,
    kind,
    charge,
    requestId: task.requestId ?? null,
    taskId: task.taskId,
    upstreamRequestId: task.upstreamRequestId ?? null,
    createdAt: now,
  };
}

/** What of a queued row no hold covers: counted against its token's quota until it is written. */
export const uncovered = (r: LedgerRow): number => r.charge.amount - (r.covered ?? 0);

export function ledgerValues(r: LedgerRow) {
  return {
    idempotency_key: r.key,
    token_id: r.tokenId,
    model: r.model,
    kind: r.kind,
    quantities: jsonText(r.charge.quantities) ?? 'null',
    unit_prices: jsonTextOnce(r.charge.unitPrices) ?? 'null',
    amount: r.charge.amount,
    request_id: r.requestId,
    task_id: r.taskId,
    // The upstream's request id is outside text: cut to its varchar(200) column (store/clip.ts).
    upstream_request_id: clip(r.upstreamRequestId, 200),
    created_at: r.createdAt,
    account_id: r.accountId ?? null,
    list_amount: r.charge.listAmount ?? null,
    price_group: r.charge.priceGroup ?? null,
  };
}

export function ledgerTuple(r: LedgerRow): LedgerTuple {
  const upstreamId = clip(r.upstreamRequestId, 200);
  const c = r.charge;
  // A row of no allowance (no account, no price group) keeps the short tuple.
  if (!r.allowance)
    return [
      r.key,
      r.tokenId,
      r.model,
      r.kind,
      c.quantities,
      c.unitPrices,
      c.amount,
      r.requestId,
      r.taskId,
      upstreamId,
      r.createdAt,
      null,
    ];
  const covered = r.covered ?? 0;
  const list = c.listAmount ?? null;
  const group = c.priceGroup ?? null;
  return [
    r.key,
    r.tokenId,
    r.model,
    r.kind,
    c.quantities,
    c.unitPrices,
    c.amount,
    r.requestId,
    r.taskId,
    upstreamId,
    r.createdAt,
    r.allowance.tuple,
    covered,
    list,
    group,
  ];
}

/** A charge the store did not take, on the log line that reports it: every field, to be entered by hand. */
export function ledgerRowForLog(r: LedgerRow) {
  return {
    key: r.key,
    token_id: r.tokenId,
    model: r.model,
    kind: r.kind,
    amount: r.charge.amount,
    quantities: r.charge.quantities,
    unit_prices: r.charge.unitPrices,
    request_id: r.requestId,
    task_id: r.taskId,
    upstream_request_id: r.upstreamRequestId,
    created_at: r.createdAt,
    account_id: r.accountId ?? null,
    list_amount: r.charge.listAmount ?? null,
    price_group: r.charge.priceGroup ?? null,
    budget_rows: r.allowance?.target.budgetRows ?? [],
  };
}
