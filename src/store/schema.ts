// Kysely Database interface. Timestamps are integer milliseconds since the epoch; money is
// integer micro-units; JSON columns are text (parsed in repos) so both dialects behave alike.
import type { AlertMarksTable, WebhookDeliveriesTable, WebhooksTable } from './schema-alerts.ts';

import type { AccountsTable, BudgetSpendTable, PriceGroupsTable } from './schema-accounts.ts';
import type { CreditBatchesTable, CreditCodesTable, PaymentEventsTable } from './schema-credit.ts';
import type { TaskSlotQueuesTable, TaskSlotTurnsTable } from './schema-slot-queues.ts';
import type { VideoInputsTable } from './schema-video-inputs.ts';
import type { AuditLogTable, ConsoleSessionsTable, StaffKeysTable, StaffPeopleTable } from './schema-staff.ts';
import type { RequestStatsBucketsTable, RequestStatsFilledTable } from './schema-stats.ts';
import type { AccountMembersTable, MemberKeysTable, PortalSessionsTable } from './schema-portal.ts';

export type {
  AccountsTable,
  AuditLogTable,
  ConsoleSessionsTable,
  RequestStatsBucketsTable,
  RequestStatsFilledTable,
  AlertMarksTable,
  BudgetSpendTable,
  PriceGroupsTable,
  StaffKeysTable,
  StaffPeopleTable,
  TaskSlotQueuesTable,
  TaskSlotTurnsTable,
  WebhookDeliveriesTable,
  WebhooksTable,
};
import type { Generated } from 'kysely';

export interface TokensTable {
  id: string;
  name: string;
  secret_hash: string;
  prefix: string;
  models: string | null; // JSON array of public model names, null = all
  quota: number | null; // micro-units, null = unlimited
  spent: Generated<number>; // micro-units charged so far
  held: Generated<number>; // micro-units currently held by open tasks
  rpm_limit: number | null;
  tpm_limit: number | null; // tokens per minute (migration 004)
  concurrency_limit: number | null;
  expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
  /** The secret before the last rotation, accepted until previous_secret_until (ms); null when none. */
  previous_secret_hash: string | null;
  previous_secret_until: number | null;
  /**
   * Sealed (SecretBox) `whsec_…` secret client callbacks are signed with; null for a token older than migration 013
   * until its first callback or rotation.
   */
  callback_secret: string | null;
  /** When the current callback secret was shown (creation or rotation); null: never shown to anyone. */
  callback_secret_issued_at: number | null;
  /** The sealed callback secret before the last rotation: it signs too until previous_callback_secret_until (ms). */
  previous_callback_secret: string | null;
  previous_callback_secret_until: number | null;
  /** The account that owns the token (migration 018); null: none. */
  account_id: string | null;
  /** JSON array of budgets [{period, limit}] (migration 018); null: none. */
  budgets: string | null;
}

export interface ChannelsTable {
  id: string;
  name: string;
  kind: string; // one of the upstreams' kinds (adapters/upstreams.ts)
  base_url: string;
  key_enc: string; // AES-GCM encrypted JSON of the credentials
  models: string | null; // JSON array of public names served, null = all of its kind
  status: string; // 'enabled' | 'disabled'
  priority: number;
  weight: number;
  /** The upstream account the key belongs to; null = the key is its own account. */
  account: string | null;
  /** Parallel tasks per model version on the account, set by the operator; null = learnt from the upstream. */
  task_slots: number | null;
  /** JSON {"<model>"|"*": {rpm?, tpm?, concurrency?}}: the account's limits stated on this channel; null = none. */
  model_limits?: string | null;
  /** Migration 040: JSON {per_unit?, per_second?, price_ratio?, tolerance?}: what the upstream charges us; null = unstated. */
  cost?: string | null;
  created_at: number;
  updated_at: number;
}

export interface RequestLogTable {
  request_id: string;
  token_id: string | null;
  model: string | null;
  endpoint: string;
  method: string;
  status: number;
  latency_ms: number;
  usage: string | null; // JSON
  amount: number;
  upstream_request_id: string | null;
  error_code: string | null;
  created_at: number;
  channel_id: string | null; // the channel that answered
  attempts: string | null; // JSON array of upstream attempts
  ttfb_ms: number | null; // time to the first byte of the answer
  upstream_error: string | null; // the upstream's own words on a refusal (operators only)
}

export interface LedgerTable {
  id: Generated<number>;
  idempotency_key: string; // unique
  token_id: string;
  model: string;
  kind: string; // 'tokens' | 'images' | 'video' ...
  quantities: string; // JSON
  unit_prices: string; // JSON
  amount: number;
  request_id: string | null;
  task_id: string | null;
  upstream_request_id: string | null;
  created_at: number;
  account_id: Generated<string | null>; // migration 018
  list_amount: Generated<number | null>; // the amount at list price; null = the amount charged
  price_group: Generated<string | null>;
  /**
   * Migration 030: a credit line's holder, 'token' or 'account' (an account's top-up keeps its id in token_id); null
   * for a charge.
   */
  holder_kind: Generated<string | null>;
  /** Migration 040: what the upstream charged us for it (micro-units, from its channel's stated cost); null: unknown. */
  upstream_cost: Generated<number | null>;
}

export interface HoldsTable {
  hold_key: string; // primary key (migration 029): a task id, a call's reservation key (req_…) or an allowance's (lease_…)
  token_id: string;
  amount: number;
  state: string; // 'held' | 'settled' | 'released'
  created_at: number;
  updated_at: number;
  account_id: Generated<string | null>; // migration 018: the account also held against
  price_group: Generated<string | null>; // the price group the hold's call is charged at
  budget_rows: Generated<string | null>; // JSON [[holder_id, period, period_start], …] held against
  price_terms: Generated<string | null>; // migration 023: JSON, a task's prices fixed at its creation (pricing/price-terms.ts)
}

export interface TasksTable {
  id: string; // our public id (video_id / family A task_id)
  family: string; // 'a' | 'b'
  kind: string; // 'video' | 't2v' | 'multi-elements' | 'omni' ...
  token_id: string;
  model: string; // canonical public name
  billing_model: string; // model whose price applies (snapshot → base)
  upstream_model: string;
  channel_id: string;
  upstream_task_id: string | null;
  state: string; // 'waiting' | 'submitting' | 'queued' | 'in_progress' | 'succeeded' | 'failed' | 'cancelled'
  upstream_status: string | null;
  progress: number | null;
  request: string; // JSON snapshot of the client request (public fields)
  result: string | null; // JSON: {url, expires_at, videos: [...]}
  usage: string | null; // JSON: provider-reported usage
  error: string | null; // JSON: {code, message}
  external_task_id: string | null;
  callback_url: string | null;
  session_id: string | null;
  request_id: string;
  upstream_request_id: string | null;
  tier: string | null; // '720p' | '1080p' | 'std' | 'pro'
  hold_amount: number;
  next_poll_at: number;
  poll_attempts: Generated<number>;
  lease_owner: string | null;
  lease_until: number | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  /** When the upstream was last asked (set by the claim / lease statement). Added by migration 008. */
  checked_at: number | null;
  /** The parallel-task queue (upstream account and model version) the task is counted in; null: none. Migration 017. */
  slot_queue: string | null;
  /** JSON {path, body}: the upstream creation of a task waiting for a slot, cleared once submitted. Migration 017. */
  submit_body: string | null;
  /** When its owner deleted it (DELETE /v1/videos/{id}): hidden from them, kept for the operator. Migration 045. */
  deleted_at: number | null;
}

export interface SessionsTable {
  id: string; // our public session id
  token_id: string;
  channel_id: string;
  upstream_session_id: string;
  data: string | null; // JSON of the init response
  created_at: number;
  expires_at: number;
}

export interface CallbacksTable {
  id: string;
  task_id: string;
  token_id: string;
  url: string;
  payload: string; // JSON
  state: string; // 'pending' | 'delivered' | 'failed'
  attempts: Generated<number>;
  next_at: number;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface CatalogueOverridesTable {
  model: string;
  entry: string; // JSON of a partial ModelEntry (price, upstream model …)
  updated_at: number;
}

/** A version per cached table, moved by a trigger on each write (migration 081): what the periodic refresh reads. */
export interface CacheVersionsTable {
  name: string;
  version: number | string;
}

/** The history of model prices (migration 010): one row per change, prices as JSON (null: the model had none). */
export interface PriceChangesTable {
  id: Generated<number>;
  model: string;
  action: string; // 'set' | 'reset'
  old_price: string | null;
  new_price: string | null;
  actor: string; // as the audit line names it: admin, cli, console:<session id>
  request_id: string | null;
  at: number;
}

/** A task's timeline (migration 011): one row per state change or money move, written with the change it records. */
export interface TaskEventsTable {
  id: Generated<number>;
  task_id: string;
  at: number;
  kind: string; // tasks/events.ts TaskEventKind
  from_state: string | null;
  to_state: string | null;
  upstream_status: string | null;
  amount: number | null; // micro-units: charged, hold released, or held at submit
  ledger_id: number | null; // the charge's ledger line
  detail: string | null;
}

export interface Database {
  tokens: TokensTable;
  accounts: AccountsTable;
  price_groups: PriceGroupsTable;
  budget_spend: BudgetSpendTable;
  channels: ChannelsTable;
  audit_log: AuditLogTable;
  request_log: RequestLogTable;
  ledger: LedgerTable;
  holds: HoldsTable;
  tasks: TasksTable;
  sessions: SessionsTable;
  callbacks: CallbacksTable;
  catalogue_overrides: CatalogueOverridesTable;
  cache_versions: CacheVersionsTable;
  console_sessions: ConsoleSessionsTable;
  request_stats_buckets: RequestStatsBucketsTable;
  request_stats_filled: RequestStatsFilledTable;
  price_changes: PriceChangesTable;
  task_events: TaskEventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  alert_marks: AlertMarksTable;
  task_slot_queues: TaskSlotQueuesTable;
  task_slot_turns: TaskSlotTurnsTable;
  video_inputs: VideoInputsTable;
  credit_batches: CreditBatchesTable;
  credit_codes: CreditCodesTable;
  payment_events: PaymentEventsTable;
  staff_people: StaffPeopleTable;
  staff_keys: StaffKeysTable;
  account_members: AccountMembersTable;
  member_keys: MemberKeysTable;
  portal_sessions: PortalSessionsTable;
}
