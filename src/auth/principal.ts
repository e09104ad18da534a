import type { Billing } from '../metering/billing.ts';

/** Who is calling: resolved from the bearer token once per request. */
export interface Principal {
  tokenId: string;
  name: string;
  /** Allowed public model names, null = any. */
  models: string[] | null;
  quota: number | null;
  rpmLimit: number | null;
  /** Tokens (input + output) per minute. */
  tpmLimit: number | null;
  concurrencyLimit: number | null;
  /** The account and budgets its calls are also billed against; null for a token with neither (the plain path). */
  billing: Billing | null;
}
