// The tables of customer accounts, their price groups and their budget periods' spend.
import type { Generated } from 'kysely';

/** Customer accounts owning tokens (migration 018): quota/spent/held in micro-units, like a token's. */
export interface AccountsTable {
  id: string;
  name: string;
  quota: number | null;
  spent: Generated<number>;
  held: Generated<number>;
  budgets: string | null; // JSON array of budgets [{period, limit}]
  price_group: string | null;
  time_zone: string | null; // IANA name; null = UTC
  expires_at: number | null;
  revoked_at: number | null;
  /** Fair-share weight in a contended upstream's queue; null = 1. */
  weight?: number | null;
  created_at: number;
  updated_at: number;
}

/** Named price groups (migration 018): a multiplier of list prices (parts per million) and per-model prices. */
export interface PriceGroupsTable {
  name: string;
  multiplier_ppm: number;
  prices: string | null; // JSON {model: Price}
  created_at: number;
  updated_at: number;
}

/** Spend of one holder (token or account) in one budget period (migration 018). */
export interface BudgetSpendTable {
  holder_id: string;
  period: string; // 'day' | 'week' | 'month'
  period_start: number; // ms
  spent: Generated<number>;
  held: Generated<number>;
}
