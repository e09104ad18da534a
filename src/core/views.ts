import type { BudgetStatus } from './admin/budgets.ts';
import type { Amount } from '../vocabulary/exact-amount.ts';
import type { BudgetPeriod } from '../vocabulary/budgets.ts';
// The answers of the token and bill endpoints as their readers see them: types only, importing nothing, so the
// operator console (console/src/types.ts) checks its pages against what the server builds instead of copying them.
// Money is integer micro-units (1 unit = 1,000,000); `*_units` the same amount as an exact decimal string of units.

/** A client token as the operator sees it: never the secret or its hash. */
export interface TokenView {
  id: string;
  name: string;
  /** The secret's first characters, to recognise it. */
  prefix: string;
  /** The model allow-list; null = every model. */
  models: string[] | null;
  /** The token's own quota; null = none of its own (its account's may still limit it: `account`). */
  quota: number | null;
  spent: number;
  /** Held for calls and tasks still running. */
  held: number;
  /** What the token's own quota leaves (null: no quota of its own). */
  remaining?: number | null;
  /** The token's account's balance (null: no account): its quota counts for the token too. */
  account?: {
    id: string;
    name: string;
    quota: number | null;
    spent: number;
    held: number;
    remaining: number | null;
  } | null;
  /** What the token may still spend: the least its quota and its account's leave; null when neither has a quota. */
  effective_remaining?: number | null;
  rpm_limit: number | null;
  tpm_limit: number | null;
  concurrency_limit: number | null;
  expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
  /** After a rotation with a grace period: until when the previous secret still works. */
  previous_secret_until: number | null;
  /**
   * When the current callback secret was shown (creation or rotation); null: never (a token older than callback
   * secrets).
   */
  callback_secret_issued_at: number | null;
  /** The account that owns the token (null: none), and the token's own budgets. */
  account_id: string | null;
  budgets: Array<{ period: string; limit: number }>;
  /** After a callback-secret rotation: until when callbacks are signed with the previous callback secret too. */
  previous_callback_secret_until: number | null;
}

/** The answer to a creation: the only time the secret and the callback secret are shown. */
export interface CreatedTokenView {
  id: string;
  name: string;
  token: string;
  /** `whsec_…`: what the holder verifies the task callbacks with (Standard Webhooks). */
  callback_secret: string;
  models: string[] | null;
  quota: number | null;
  expires_at: number | null;
  created_at: number;
  account_id: string | null;
  budgets: Array<{ period: string; limit: number }>;
}

/** A top-up's answer: the token after it. */
export interface TopUpView extends TokenView {
  topup: { amount: number; credited: boolean };
}

/** A count of ledger lines (`entries`), and its former name on the usage answers (deprecated, for one release). */
export interface LedgerCount {
  entries: number;
  /** Deprecated: `entries`. */
  requests: number;
}

/** The count of ledger lines under both its names (the old one deprecated, emitted for one release). */
export const ledgerCount = (entries: number): LedgerCount => ({ entries, requests: entries });

/** A token's balance and its charges per model over a period (GET /v1/usage, GET /admin/tokens/{id}/usage). */
export interface TokenUsageView {
  object: 'token_usage';
  token: { id: string; name: string; models: string[] | null; expires_at: number | null };
  unit: string;
  balance: {
    /** null: no quota (unlimited). */
    quota: number | null;
    /** Charged to the ledger (the budgets' word too). */
    spent: number;
    /** Held for calls and tasks still running. */
    held: number;
    /** null when unlimited. */
    remaining: number | null;
    /** Deprecated: `spent`, emitted beside it for one release. */
    used: number;
    /** Deprecated: `held`, emitted beside it for one release. */
    reserved: number;
  };
  /** ms since the epoch: since inclusive, until exclusive. */
  period: { since: number; until: number };
  usage: {
    data: Array<LedgerCount & { model: string; amount: Amount; amount_units: string }>;
    total: LedgerCount & { amount: Amount; amount_units: string };
    /** Top-ups credited in the period. */
    credited: Amount;
  };
  /** The token's own budgets, each with its spend in the current period. */
  budgets: BudgetStatus[];
  /** The token's account: its balance and budgets (null: the token has none). */
  account: {
    id: string;
    name: string;
    balance: TokenUsageView['balance'];
    budgets: BudgetStatus[];
    time_zone: string | null;
    expires_at: number | null;
  } | null;
}

/** A bill's period: a day, an ISO week (from Monday) or a month, in the bill's time zone (as budgets). */
export type BillPeriod = BudgetPeriod;

/** Where a bill line's period starts and ends: a label and its first and last days. */
export interface BillDates {
  period: BillPeriod;
  /** Label: YYYY-MM-DD (a day; a week: its Monday) or YYYY-MM (a month), in the bill's time zone. */
  period_start: string;
  /** The period's first and last days (ISO 8601 dates, both included) in the bill's time zone. */
  first_day: string;
  last_day: string;
}

/**
 * What the charges that recorded their upstream cost (their channel states one) cost us, and the margin on them:
 * present on a bill line (and a model of it) only where some did.
 */
export interface CostFigures {
  /** Charges with a recorded upstream cost. */
  costed_entries: number;
  upstream_cost: Amount;
  /** Their amount charged less their upstream cost. */
  margin: Amount;
}

/** Ledger totals of one token in one period. */
export interface BillLine extends Partial<CostFigures>, BillDates {
  token_id: string;
  token_name: string | null;
  /** Charges (credit lines are not charges). */
  entries: number;
  amount: Amount;
  amount_units: string;
  /** The same charges at list (catalogue) price: above `amount` where a price group charged less. */
  list_amount: Amount;
  models: Record<string, { entries: number; amount: Amount; amount_units: string } & Partial<CostFigures>>;
  /** Top-ups credited in the period: added to the quota, not part of `amount`. */
  credits: { entries: number; amount: Amount };
}

/** One model's charges, or the top-ups (kind `credit`, no model), of one token in one period (`by=model`). */
export interface BillModelLine extends Partial<CostFigures>, BillDates {
  token_id: string;
  token_name: string | null;
  kind: 'charges' | 'credit';
  /** null on a credit line. */
  model: string | null;
  entries: number;
  amount: Amount;
  amount_units: string;
}

export interface BillTotal {
  entries: number;
  amount: Amount;
  amount_units: string;
  /** Top-ups credited. */
  credit: Amount;
}

export interface BillView {
  object: 'bill';
  period: BillPeriod;
  /** The zone of the periods' day boundaries (IANA name; null: UTC). */
  time_zone: string | null;
  unit: string;
  data: BillLine[];
  total: BillTotal;
}

export interface BillByModelView {
  object: 'bill';
  period: BillPeriod;
  time_zone: string | null;
  by: 'model';
  unit: string;
  data: BillModelLine[];
  total: BillTotal;
}

/** Ledger totals of one account in one period (`by=account`); account_id null: lines of no account. */
export interface BillAccountLine extends Omit<BillLine, 'token_id' | 'token_name'> {
  account_id: string | null;
  account_name: string | null;
}

export interface BillByAccountView {
  object: 'bill';
  period: BillPeriod;
  time_zone: string | null;
  by: 'account';
  unit: string;
  data: BillAccountLine[];
  total: BillTotal;
}

/** What an operator sees of a task: its state, owner, model, channel and timing; not the client's request body. */
export interface AdminTaskView {
  id: string;
  family: string;
  kind: string;
  state: string;
  token_id: string;
  model: string;
  channel_id: string;
  upstream_task_id: string | null;
  upstream_status: string | null;
  progress: number | null;
  error: { code: string; message: string } | null;
  hold_amount: number;
  poll_attempts: number;
  next_poll_at: number;
  request_id: string;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  /** The parallel-task queue the task is counted in (upstream account and model version); null: none. */
  slot_queue: { account: string; model: string } | null;
}

/** One event of a task's timeline as the admin API shows it. */
export interface AdminTaskEventView {
  id: number;
  at: number;
  kind: string;
  from: string | null;
  to: string | null;
  upstream_status: string | null;
  amount: number | null;
  ledger_id: number | null;
  detail: string | null;
}

/** A ledger line as the admin API lists it. */
export interface LedgerLineView {
  id: number;
  idempotency_key: string;
  token_id: string;
  model: string;
  kind: string;
  quantities: unknown;
  unit_prices: unknown;
  amount: number;
  request_id: string | null;
  task_id: string | null;
  upstream_request_id: string | null;
  created_at: number;
}

/** One task, its timeline (oldest first) and its ledger lines with their total: what it was charged and why. */
export interface AdminTaskDetail extends AdminTaskView {
  upstream_request_id: string | null;
  events: AdminTaskEventView[];
  ledger: LedgerLineView[];
  charged: number;
}
