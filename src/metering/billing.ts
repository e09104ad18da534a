// What a token's calls are billed against besides the token itself: its account (quota, price group, time zone) and
// the budgets of the token and of the account. Null for a token without account and budgets: its calls take the
// plain path (no extra query, no extra allocation).

/** One budget as a hold checks it: whose it is (token or account id), its period (balances/rows.ts) and its limit. */
export interface BudgetLimit {
  holderId: string;
  period: string;
  limit: number;
}

export interface Billing {
  accountId: string | null;
  priceGroup: string | null;
  /** IANA time zone of the budget periods; null = UTC. */
  timeZone: string | null;
  budgets: readonly BudgetLimit[];
  /** The account's fair-share weight when an upstream account is contended (absent: 1). */
  weight?: number;
}
