// A channel's stated upstream cost (`cost` on the channel admin API): checked here, kept as given.
import { GatewayError } from '../../errors/gateway-error.ts';
import { isObject } from '../../json/json.ts';
import { MAX_UNIT_PRICE } from '../../pricing/price-fields.ts';
import type { ChannelCost } from '../../vocabulary/price.ts';

const KEYS = ['per_unit', 'per_second', 'price_ratio', 'tolerance'] as const;
const bad = (message: string, param: string) => new GatewayError('invalid_parameter', message, { param });

/** `cost`: {per_unit?, per_second?, price_ratio?, tolerance?}; null clears; absent leaves it as it is. */
export function parseCostField(body: Record<string, unknown>): ChannelCost | null | undefined {
  if (!('cost' in body)) return undefined;
  const v = body.cost;
  if (v === null) return null;
  if (!isObject(v))
    throw bad('cost must be an object {per_unit?, per_second?, price_ratio?, tolerance?} or null', 'cost');
  const out: ChannelCost = {};
  for (const k of Object.keys(v))
    if (!(KEYS as readonly string[]).includes(k))
      throw bad(`cost.${k} is not a known field (allowed: ${KEYS.join(', ')})`, `cost.${k}`);
  for (const k of ['per_unit', 'per_second'] as const) {
    const n = v[k];
    if (n === undefined) continue;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_UNIT_PRICE)
      throw bad(`cost.${k} must be an integer number of micro-units from 0 to ${MAX_UNIT_PRICE}`, `cost.${k}`);
    out[k] = n;
  }
  if (v.price_ratio !== undefined) {
    if (typeof v.price_ratio !== 'number' || !(v.price_ratio > 0) || v.price_ratio > 1000)
      throw bad('cost.price_ratio must be a number above 0 (at most 1000)', 'cost.price_ratio');
    out.price_ratio = v.price_ratio;
  }
  if (v.tolerance !== undefined) {
    if (typeof v.tolerance !== 'number' || !(v.tolerance >= 0) || v.tolerance > 1)
      throw bad('cost.tolerance must be a number from 0 to 1', 'cost.tolerance');
    out.tolerance = v.tolerance;
  }
  return Object.keys(out).length === 0 ? null : out;
}
