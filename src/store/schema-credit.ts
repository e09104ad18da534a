// The tables of credit that arrives by itself (migration 050): redemption code batches, their codes, and the payment
// provider's events. Part of the store's schema (schema.ts).
import type { Generated } from 'kysely';

/** A batch of redemption codes, each worth `amount` micro-units, usable until `expires_at`. */
export interface CreditBatchesTable {
  id: string;
  name: string | null;
  amount: number;
  count: number;
  expires_at: number;
  revoked_at: number | null;
  created_by: string; // the audit line's actor
  created_at: number;
}

/** One code of a batch: only its SHA-256 is kept; set once redeemed, with the holder it credited. */
export interface CreditCodesTable {
  id: string;
  batch_id: string;
  code_hash: string;
  /** The code's last characters, to tell codes apart in a list. */
  hint: string;
  redeemed_at: number | null;
  holder_kind: string | null; // 'token' | 'account'
  holder_id: string | null;
  token_id: string | null; // the token that redeemed it
  request_id: string | null;
}

/** A payment provider's event as it arrived, with what it came to (credited or why not). */
export interface PaymentEventsTable {
  id: string;
  provider: string; // 'stripe'
  event_id: string | null; // null when the signature did not verify (nothing in it is trusted)
  type: string | null;
  account_id: string | null;
  amount_minor: number | null;
  currency: string | null;
  amount: number | null; // micro-units credited (or that would have been)
  outcome: string;
  detail: string | null;
  deliveries: Generated<number>;
  created_at: number;
  updated_at: number;
}
