// Our charge against the upstream's own bill: a task whose upstream reported its deduction (Kling
// `final_unit_deduction`), on a channel that states its cost per unit, is flagged when its price ratio — the charge
// at list price over that cost — strays from the channel's `price_ratio` by more than its `tolerance`.
import { mulDivCeil } from '../pricing/prices.ts';
import { ratioAgrees } from '../pricing/upstream-cost.ts';
import type { ChannelCost } from '../vocabulary/price.ts';
import { parse } from './reconcile-price.ts';

export interface UpstreamDisagreement {
  task_id: string;
  model: string;
  channel: string;
  /** Our charge, and the same at list price. */
  amount: number;
  list_amount: number;
  /** What the upstream deducted, in its units, and what that cost us. */
  upstream_units: number;
  upstream_cost: number;
  /** list_amount ÷ upstream_cost, and what the channel says it should be. */
  ratio: number;
  price_ratio: number;
  reason: string;
}

interface Line {
  model: string;
  quantities: string;
  amount: number;
  listAmount?: number;
  taskId: string | null;
  upstreamCost?: number | null;
}

/** The disagreement of one task charge, or null (agrees, or nothing to compare it with). */
export function upstreamDisagreement(
  line: Line,
  channel: string | undefined,
  costs: ReadonlyMap<string, ChannelCost> | undefined,
): UpstreamDisagreement | null {
  const cost = channel ? costs?.get(channel) : undefined;
  const units = parse(line.quantities)?.upstream_units;
  if (!line.taskId || !channel || !cost || typeof units !== 'number' || !Number.isFinite(units)) return null;
  const upstream =
    line.upstreamCost ??
    (cost.per_unit !== undefined ? mulDivCeil(Math.round(units * 1000), cost.per_unit, 1000) : null);
  if (upstream === null) return null;
  const list = line.listAmount ?? line.amount;
  if (ratioAgrees(cost, list, upstream)) return null;
  const ratio = upstream === 0 ? Number.POSITIVE_INFINITY : list / upstream;
  return {
    task_id: line.taskId,
    model: line.model,
    channel,
    amount: line.amount,
    list_amount: list,
    upstream_units: units,
    upstream_cost: upstream,
    ratio: Math.round(ratio * 1000) / 1000,
    price_ratio: cost.price_ratio ?? 1,
    reason: `the charge is ${ratio > (cost.price_ratio ?? 1) ? 'above' : 'below'} the upstream's deduction by more than the price ratio allows`,
  };
}
