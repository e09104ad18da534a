// The period a holder's usage answer covers (a token's: GET /v1/usage and /admin/tokens/{id}/usage; an account's:
// /admin/accounts/{id}/usage), written once for both.
import { GatewayError } from '../errors/gateway-error.ts';

/** The longest period one answer covers (a year and a day): the sums are computed per request. */
export const MAX_USAGE_PERIOD_MS = 367 * 86_400_000;

/** The start of the UTC month holding `now`. */
export function monthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

export interface UsageRange {
  since?: number | undefined;
  until?: number | undefined;
}

/** The period [since, until) asked for (default: the current UTC month up to `now`); refused when empty or too long. */
export function usagePeriod(range: UsageRange, now: number): { since: number; until: number } {
  const since = range.since ?? monthStart(now);
  const until = range.until ?? now + 1;
  if (until <= since) throw new GatewayError('invalid_parameter', 'until must be after since', { param: 'until' });
  if (until - since > MAX_USAGE_PERIOD_MS)
    throw new GatewayError('invalid_parameter', 'The period may span at most 367 days', { param: 'since' });
  return { since, until };
}
