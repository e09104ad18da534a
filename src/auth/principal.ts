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

/** Whose call it is, for what one tenant's calls may learn only for itself: the billing account, else the token. */
export function tenantOf(p: Principal): string {
  const account = p.billing?.accountId;
  return account ? `acct:${account}` : tokenTenant(p.tokenId);
}

/** The tenant of a token known only by its id (a task submitted later): the token's own. */
export const tokenTenant = (tokenId: string): string => `tok:${tokenId}`;
