// The metering API every capability uses. Money is integer micro-units; the ledger is the authority.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { Billing } from './billing.ts';
import type { AllowanceTuple } from '../store/sqlite-row-tuples.ts';
import type { HoldTarget } from './balances/rows.ts';
import type { Usage } from '../vocabulary/usage.ts';

/** Whose allowances a change of terms ends: a token's, or every token's of an account. */
export type AllowanceHolder = { tokenId: string } | { accountId: string };

/** A store transaction a meter step can join, so that it commits with the caller's other writes or not at all. */
export type StoreTransaction = Kysely<Database>;

export type { ModeTier, Usage, VideoTier } from '../vocabulary/usage.ts';

export interface Charge {
  amount: number;
  /** JSON-able quantities and unit prices actually applied (kept in the ledger entry). */
  quantities: Record<string, unknown>;
  unitPrices: Record<string, unknown>;
  /** Set when a price group priced the charge: the amount at list (catalogue) price, and the group's name. */
  listAmount?: number;
  priceGroup?: string;
}

export interface SyncChargeInput {
  /** Gateway request id: the ledger's idempotency key (unless `idempotencyKey` is given). */
  requestId: string;
  /** Override of the unique key, for a request that legitimately writes more than one charge. */
  idempotencyKey?: string;
  tokenId: string;
  /** Public model name as shown to the client (the ledger shows this). */
  model: string;
  /** Catalogue entry id whose price applies (snapshot → base). */
  billingModel: string;
  usage: Usage;
  upstreamRequestId?: string | null;
  /**
   * The caller's account, price group and budgets (Principal.billing), for a charge that cannot read them from its
   * reservation: queued because the store refused the settlement for the moment, it still lands on them, at the group's
   * price.
   */
  billing?: Billing | null;
}

export type { Billing };

export interface TaskRef {
  /** The public task id the client was given (`video_id` / family A `task_id`). */
  taskId: string;
  tokenId: string;
  model: string;
  billingModel: string;
  requestId?: string | null;
  upstreamRequestId?: string | null;
  /** The creator's account, price group and budgets (hold only; a settlement reads them from the hold). */
  billing?: Billing | null;
}

export interface Meter {
  /** Price usage without writing anything (at a price group's price when one is named). */
  price(billingModel: string, usage: Usage, priceGroup?: string | null): Charge;
  /** The meter's clock (ms): budget periods are read from it (tests set it). */
  now(): number;
  /** One ledger entry keyed by the request id; a repeated key is a no-op. Returns the amount charged. */
  chargeSync(input: SyncChargeInput): Promise<number>;
  /** Place a hold for a task's estimated cost; refuses (insufficient_quota) if it would exceed the quota. */
  hold(task: TaskRef, estimate: Usage): Promise<number>;
  /**
   * Settle a task at terminal success: exactly one charge (key `${taskId}:success`), hold closed. `within`: the
   * caller's transaction (the task's own move to succeeded commits with it), else one of its own.
   */
  settle(task: TaskRef, reported: Usage, within?: StoreTransaction): Promise<number>;
  /**
   * Release a task's hold at failure/cancel; nothing is charged. Idempotent. True when this call decided the task's
   * outcome (the hold was still open); false when it was already settled (charged) or released.
   */
  release(task: TaskRef): Promise<boolean>;
  /** The state of a task's hold: 'held' while open, then 'settled' (charged) or 'released'; null when it has none. */
  holdState(taskId: string, within?: StoreTransaction): Promise<'held' | 'settled' | 'released' | null>;
  /**
   * Group-commit variant of chargeSync for the request path: prices now, returns the amount at once and
   * queues the ledger row; a writer commits queued rows in batches (same unique key → still exactly once).
   * Rows still queued at a crash are lost (under-billing, never double billing): docs/api.md, Metering and billing.
   */
  chargeSyncDeferred(input: SyncChargeInput): number;
  /**
   * Back-pressure for a call whose charge was queued: undefined while the queue's oldest charge is young (about
   * 100 ms); else resolves once the charges queued so far are written (or a write failed), and the answer waits for
   * it — so a crash loses at most the last moments' charges, however far the writer falls behind.
   */
  chargesBehind(): Promise<void> | undefined;
  /**
   * Reserve `amount` against the token's quota for one call answered at once (key: its request id), atomically
   * with every other hold: refuses (insufficient_quota) when spent + held + amount would pass the quota. Undefined
   * when it is reserved at once (from the token's allowance, allowances.ts): nothing to wait for.
   */
  reserve(key: string, tokenId: string, amount: number, billing?: Billing | null): Promise<void> | undefined;
  /**
   * Close a call's reservation and write its one charge (ledger key: the request id) in one transaction; a call that
   * reserved from an allowance has its charge queued (group commit) and its amount answered at once.
   */
  settleReserved(input: SyncChargeInput): Promise<number> | number;
  /**
   * Tokens a charge was cut at for want of room (their balance, or their account's, at the bound): their calls
   * reserve even without a quota, so a hold refuses them instead of serving them for nothing.
   */
  readonly atBound: ReadonlySet<string>;
  /** Close a call's reservation without a charge (the call produced no result). Idempotent. */
  releaseReserved(key: string): Promise<void>;
  /** Give back the allowances busy tokens reserve from (allowances.ts): a stopping instance, its calls done. */
  releaseAllowances(): Promise<void>;
  /**
   * A token's or an account's quota, budgets or account changed: its allowances on this instance take no new
   * reservation from this call on (synchronously), so the next calls reserve against the new terms.
   */
  retireAllowances(holder: AllowanceHolder): void;
  /** Release reservations of calls older than `olderThanMs` that were never closed (their instance died). */
  reapReservations(olderThanMs: number, onReaped?: OnReaped): Promise<number>;
  /** Flush queued writes (graceful shutdown, tests, admin reads). */
  flush(): Promise<void>;
  /** Charges queued and not yet written (what a shutdown whose store never came back reports, every field). */
  unwritten(): readonly LedgerRow[];
}

/**
 * A hold the reaper released, reported inside the transaction that released it (an alert written there is never lost).
 */
export interface ReapedHold {
  /** The hold's key: a call's `req_…` reservation, or the task id of a task whose row is gone. */
  key: string;
  tokenId: string;
  amount: number;
}

export type OnReaped = (trx: StoreTransaction, hold: ReapedHold) => Promise<void>;

/** An allowance (allowances.ts) as the charges taken from it name it: one object per allowance, shared by its rows. */
export interface AllowanceRef {
  readonly key: string;
  /** The rows it was placed on: its charges land on them. */
  readonly target: HoldTarget;
  /** The same for the SQLite batch writer, its rows flat (balances/rows.ts flatRows). */
  readonly tuple: AllowanceTuple;
}

/** One ledger row to write. */
export interface LedgerRow {
  key: string;
  tokenId: string;
  model: string;
  kind: string;
  charge: Charge;
  requestId: string | null;
  taskId: string | null;
  upstreamRequestId: string | null;
  createdAt: number;
  /** The account the charge also counts against (null or absent: none). */
  accountId?: string | null;
  /**
   * A charge taken from an allowance (allowances.ts), or queued on its caller's billing (billingAllowance): the rows it
   * lands on (null or absent: the token alone).
   */
  allowance?: AllowanceRef | null;
  /**
   * What of the charge the allowance's hold covers: that much leaves the hold and `held` with the ledger line, in its
   * transaction.
   */
  covered?: number;
}
