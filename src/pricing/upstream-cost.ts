// What a call cost us upstream, from its channel's stated cost (ChannelCost): the upstream's own deduction times the
// cost per unit where it reported one, else the billed seconds times the cost per second. Integer micro-units,
// rounded up once; null when the channel states no cost that applies.
import type { ChannelCost } from '../vocabulary/price.ts';
import type { Usage } from '../vocabulary/usage.ts';
import { mulDivCeil } from './prices.ts';

export function upstreamCostOf(cost: ChannelCost | null | undefined, usage: Usage): number | null {
  if (!cost || (usage.kind !== 'video' && usage.kind !== 'video-mode')) return null;
  const units = usage.upstreamUnits;
  // Deductions come with up to three decimals ("3.5", "0.625"): counted in thousandths, exactly.
  if (cost.per_unit !== undefined && units !== undefined && Number.isFinite(units) && units >= 0)
    return mulDivCeil(Math.round(units * 1000), cost.per_unit, 1000);
  if (cost.per_second !== undefined) {
    const ms = Math.round((usage.outputSeconds + (usage.inputSeconds ?? 0)) * 1000);
    return mulDivCeil(ms, cost.per_second, 1000);
  }
  return null;
}

/**
 * Does a task's charge agree with what the upstream deducted? Its list amount over its upstream cost is its price
 * ratio; it agrees when that is within `tolerance` (default 0.1) of the channel's `price_ratio` (default 1).
 */
export function ratioAgrees(cost: ChannelCost, listAmount: number, upstreamCost: number): boolean {
  const want = cost.price_ratio ?? 1;
  const tol = cost.tolerance ?? 0.1;
  if (upstreamCost === 0) return listAmount === 0;
  const ratio = listAmount / upstreamCost;
  return Math.abs(ratio - want) <= want * tol;
}
