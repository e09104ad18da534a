// GET /admin/tokens/{id}/usage: any token's balance and charges per model over a period, for the operator — the
// same figures its holder reads at GET /v1/usage (core/token-usage.ts), from the ledger.
import { GatewayError } from '../../errors/gateway-error.ts';
import { usageOf, type TokenUsageDeps, type UsageRange } from '../token-usage.ts';
import type { TokenUsageView } from '../views.ts';

export function adminTokenUsage(
  deps: TokenUsageDeps,
  id: string,
  range: UsageRange,
  now = Date.now(),
): Promise<TokenUsageView> {
  return usageOf(deps, id, range, now, () => new GatewayError('not_found', `Token ${id} not found`));
}
