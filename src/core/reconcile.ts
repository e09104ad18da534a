// Reconciliation: for a period, the ledger against what the upstream reported (the usage stored with each request
// and task), re-priced with the unit prices the ledger recorded. Per day, model and channel: the two totals and
// their difference; then every charge whose stored usage disagrees, every reported usage without its charge,
// charges of tasks without a terminal success, successes without a charge, holds still open, and lost submits.
import { cutAt, parse, reprice } from './reconcile-price.ts';
import { upstreamDisagreement, type UpstreamDisagreement } from './reconcile-upstream.ts';
import { addAmounts, type Amount } from '../vocabulary/exact-amount.ts';
import type { ReconcileRows } from '../store/repos/reconcile.ts';
import { LOST_SUBMIT_CODE } from '../tasks/lost-submit.ts';

export interface ReconcileGroup {
  day: string;
  model: string;
  /** The upstream account for tasks; sync calls do not record theirs ('-'). */
  channel: string;
  /** Sums past 2^53 − 1 are strings of digits (exact-amount.ts). */
  ledger_amount: Amount;
  /** The same charges at list (catalogue) price: differs from ledger_amount where a price group priced them. */
  ledger_list_amount: Amount;
  reported_amount: Amount;
  difference: Amount;
  /** Ledger lines in the group. */
  entries: number;
  /** Deprecated: `entries`, emitted beside it for one release. */
  charges: number;
}

export interface ReconcileReport {
  /** The period, ms: since inclusive, until exclusive. */
  since: number;
  until: number;
  /** Deprecated: `since`/`until`, emitted beside them for one release. */
  from: number;
  to: number;
  groups: ReconcileGroup[];
  /** Sum of the groups' differences: zero when the ledger and the stored usage agree. */
  difference: Amount;
  mismatches: Array<{
    key: string;
    model: string;
    ledger_amount: number;
    reported_amount: number | null;
    reason: string;
  }>;
  open_holds: Array<{ key: string; token_id: string; amount: number; age_ms: number; reason: string }>;
  tasks_charged_without_success: Array<{ task_id: string; state: string; amount: number }>;
  successes_without_charge: Array<{ task_id: string; model: string }>;
  /**
   * Tasks whose creation answer was lost (gateway stopped mid-submit) and that were failed uncharged: not found
   * upstream, or not searchable there (DashScope: the upstream may have run, and billed, the task).
   */
  lost_submits: Array<{
    task_id: string;
    token_id: string;
    kind: string;
    model: string;
    channel: string;
    created_at: number;
    reason: string;
  }>;
  /**
   * Task charges that disagree with the upstream's own deduction (its channel's stated cost per unit) by more than the
   * channel's price ratio allows (reconcile-upstream.ts).
   */
  upstream_disagreements: UpstreamDisagreement[];
}

/** The reason of a charge whose request-log row is missing (not a priced mismatch: its usage is unknown). */
export const REQUEST_LOG_ROW_MISSING = 'request-log row missing';

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function reconcile(
  rows: ReconcileRows,
  from: number,
  to: number,
  now = Date.now(),
  reservationTtlMs = 30 * 60_000,
): ReconcileReport {
  const requests = new Map(rows.requests.map((r) => [r.requestId, r]));
  const tasks = new Map(rows.tasks.map((t) => [t.id, t]));
  const groups = new Map<string, ReconcileGroup>();
  const report: ReconcileReport = {
    since: from,
    until: to,
    from,
    to,
    groups: [],
    difference: 0,
    mismatches: [],
    open_holds: [],
    tasks_charged_without_success: [],
    successes_without_charge: [],
    lost_submits: [],
    upstream_disagreements: [],
  };
  const add = (
    at: number,
    model: string,
    channel: string,
    ledger: number,
    reported: number,
    charges: number,
    list = ledger,
  ) => {
    const k = `${day(at)}|${model}|${channel}`;
    const g = groups.get(k) ?? {
      day: day(at),
      model,
      channel,
      ledger_amount: 0,
      ledger_list_amount: 0,
      reported_amount: 0,
      difference: 0,
      entries: 0,
      charges: 0,
    };
    g.ledger_amount = addAmounts(g.ledger_amount, ledger);
    g.ledger_list_amount = addAmounts(g.ledger_list_amount, list);
    g.reported_amount = addAmounts(g.reported_amount, reported);
    g.difference = addAmounts(g.ledger_amount, -BigInt(g.reported_amount));
    g.entries += charges;
    g.charges = g.entries;
    groups.set(k, g);
  };
  const charged = new Set<string>();
  for (const l of rows.ledger) {
    const task = l.taskId ? tasks.get(l.taskId) : undefined;
    const req = !l.taskId && l.requestId ? requests.get(l.requestId) : undefined;
    const stored = task ? parse(task.usage) : req ? parse(req.usage) : null;
    const expected = cutAt(l.amount, l.quantities, reprice(l.kind, stored, l.unitPrices, l.quantities));
    // A call's charge whose request-log row was never written (a crash lost it: both are written behind): nothing to
    // compare it with, so it is listed apart and left out of the difference — not a charge that prices differently.
    const unlogged = req === undefined && l.requestId !== null && !l.taskId && !rows.loggedRequests.has(l.requestId);
    add(
      l.createdAt,
      l.model,
      task?.channelId ?? '-',
      l.amount,
      expected ?? (unlogged ? l.amount : 0),
      1,
      l.listAmount ?? l.amount,
    );
    if (l.requestId && !l.taskId) charged.add(l.requestId);
    const off = upstreamDisagreement(l, task?.channelId, rows.channelCosts);
    if (off) report.upstream_disagreements.push(off);
    if (l.taskId) {
      charged.add(l.taskId);
      if (task?.state !== 'succeeded')
        report.tasks_charged_without_success.push({
          task_id: l.taskId,
          state: task?.state ?? 'unknown',
          amount: l.amount,
        });
    }
    if (unlogged)
      report.mismatches.push({
        key: l.key,
        model: l.model,
        ledger_amount: l.amount,
        reported_amount: null,
        reason: REQUEST_LOG_ROW_MISSING,
      });
    else if (expected === null)
      report.mismatches.push({
        key: l.key,
        model: l.model,
        ledger_amount: l.amount,
        reported_amount: null,
        reason: 'no stored usage for this charge',
      });
    else if (expected !== l.amount)
      report.mismatches.push({
        key: l.key,
        model: l.model,
        ledger_amount: l.amount,
        reported_amount: expected,
        reason: 'the stored usage prices differently',
      });
  }
  for (const r of rows.requests) {
    if (r.amount > 0 && !charged.has(r.requestId)) {
      report.mismatches.push({
        key: r.requestId,
        model: r.model ?? '-',
        ledger_amount: 0,
        reported_amount: r.amount,
        reason: 'the request log shows a charge the ledger does not have',
      });
      add(r.createdAt, r.model ?? '-', '-', 0, r.amount, 0);
    }
  }
  for (const t of rows.tasks) {
    if (
      t.state === 'succeeded' &&
      t.finishedAt !== null &&
      t.finishedAt >= from &&
      t.finishedAt < to &&
      !charged.has(t.id)
    )
      report.successes_without_charge.push({ task_id: t.id, model: t.model });
    const err = t.state === 'failed' ? parse(t.error) : null;
    if (err?.code === LOST_SUBMIT_CODE) {
      report.lost_submits.push({
        task_id: t.id,
        token_id: t.tokenId,
        kind: t.kind,
        model: t.model,
        channel: t.channelId,
        created_at: t.createdAt,
        reason: String(err.message ?? ''),
      });
    }
  }
  for (const h of rows.openHolds) {
    const age = now - h.createdAt;
    if (h.taskState === null && age > reservationTtlMs)
      report.open_holds.push({
        key: h.key,
        token_id: h.tokenId,
        amount: h.amount,
        age_ms: age,
        reason: 'a reservation older than its time to live',
      });
    else if (h.taskState !== null && ['succeeded', 'failed', 'cancelled'].includes(h.taskState))
      report.open_holds.push({
        key: h.key,
        token_id: h.tokenId,
        amount: h.amount,
        age_ms: age,
        reason: `held for a ${h.taskState} task`,
      });
  }
  report.groups = [...groups.values()].sort(
    (a, b) => a.day.localeCompare(b.day) || a.model.localeCompare(b.model) || a.channel.localeCompare(b.channel),
  );
  report.difference = addAmounts(...report.groups.map((g) => g.difference));
  return report;
}

/** True when nothing needs an operator's eye. */
export const isClean = (r: ReconcileReport): boolean =>
  r.difference === 0 &&
  r.mismatches.length === 0 &&
  r.open_holds.length === 0 &&
  r.tasks_charged_without_success.length === 0 &&
  r.successes_without_charge.length === 0 &&
  r.lost_submits.length === 0 &&
  r.upstream_disagreements.length === 0;
