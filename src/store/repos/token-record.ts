// A token as the store holds it: the record read from its row, what creating and changing one take, and an
// authentication's match.
import type { Selectable } from 'kysely';
import type { TokensTable } from '../schema.ts';
import type { Budget } from '../../vocabulary/budgets.ts';
import { parseJson } from '../json.ts';
import { decodeBudgets } from '../budgets-text.ts';
import type { AccountRecord } from './accounts.ts';

export type TokenRow = Selectable<TokensTable>;

export interface TokenRecord {
  id: string;
  name: string;
  prefix: string;
  models: string[] | null;
  quota: number | null;
  spent: number;
  held: number;
  rpmLimit: number | null;
  tpmLimit: number | null;
  concurrencyLimit: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  createdAt: number;
  /** Until when the secret before the last rotation is still accepted (ms), or null. */
  previousSecretUntil: number | null;
  /** When the current callback secret was shown (creation or its rotation); null: never shown to anyone. */
  callbackSecretIssuedAt: number | null;
  /** Until when the callback secret before the last rotation still signs too (ms), or null. */
  previousCallbackSecretUntil: number | null;
  /** The account that owns the token, or null. */
  accountId: string | null;
  budgets: Budget[];
}

/** A token's callback secrets as stored: sealed (SecretBox). */
export interface SealedCallbackSecrets {
  /** null: a token older than callback secrets that has not been given one yet. */
  current: string | null;
  /** The one before the last rotation while it still signs (`until` in the future), else null. */
  previous: string | null;
}

/** A token found by one of its secrets: the current one (`graceUntil` null) or the previous one within its grace. */
export interface TokenMatch {
  record: TokenRecord;
  /** Set when the secret matched is the previous one: it stops working at this time (ms). */
  graceUntil: number | null;
  /** The token's account (read only for a token that has one). */
  account: AccountRecord | null;
}

/** The fields an operator may change on a token (absent = unchanged; null = remove the limit). */
export interface TokenPatch {
  name?: string;
  models?: string[] | null;
  quota?: number | null;
  rpmLimit?: number | null;
  tpmLimit?: number | null;
  concurrencyLimit?: number | null;
  expiresAt?: number | null;
  accountId?: string | null;
  budgets?: Budget[];
}

export function toTokenRecord(r: TokenRow): TokenRecord {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    models: parseJson<string[]>(r.models),
    quota: r.quota === null ? null : Number(r.quota),
    spent: Number(r.spent),
    held: Number(r.held),
    rpmLimit: r.rpm_limit,
    tpmLimit: r.tpm_limit === null ? null : Number(r.tpm_limit),
    concurrencyLimit: r.concurrency_limit,
    expiresAt: r.expires_at === null ? null : Number(r.expires_at),
    revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    createdAt: Number(r.created_at),
    previousSecretUntil:
      r.previous_secret_hash === null || r.previous_secret_until === null ? null : Number(r.previous_secret_until),
    callbackSecretIssuedAt: r.callback_secret_issued_at === null ? null : Number(r.callback_secret_issued_at),
    previousCallbackSecretUntil:
      r.previous_callback_secret === null || r.previous_callback_secret_until === null
        ? null
        : Number(r.previous_callback_secret_until),
    accountId: r.account_id,
    budgets: decodeBudgets(r.budgets),
  };
}

export interface NewToken {
  id: string;
  name: string;
  secretHash: string;
  prefix: string;
  models: string[] | null;
  quota: number | null;
  expiresAt: number | null;
  rpmLimit?: number | null;
  tpmLimit?: number | null;
  concurrencyLimit?: number | null;
  /** Sealed `whsec_…` callback secret, shown to the creator; absent: none yet (as a token older than migration 013). */
  callbackSecret?: string;
  accountId?: string | null;
  budgets?: Budget[];
}
