// Price groups as the operator manages them: PUT creates or replaces a group (a multiplier of list prices and/or
// prices set per model), GET lists them. A change applies to calls from then on on every instance
// (price-groups-changed); ledger lines already written keep the price they were charged at.
import type { Price } from '../../catalogue/types.ts';
import { priceGroupBody } from './bodies/price-groups.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { PPM, type PriceGroup } from '../../pricing/price-groups.ts';
import { validatePrice } from '../../pricing/price-validation.ts';
import { decodeCursor, encodeCursor } from '../../contracts/cursor.ts';
import { audit, type Actor, type AdminDeps } from './deps.ts';
import { pageOf, type Page } from './lists.ts';

export interface PriceGroupInput {
  multiplierPpm: number;
  prices: Record<string, Price>;
}

export function publicPriceGroup(g: PriceGroup) {
  return {
    object: 'price_group' as const,
    name: g.name,
    multiplier: g.multiplierPpm / PPM,
    prices: g.prices,
    created_at: g.createdAt,
    updated_at: g.updatedAt,
  };
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export function checkGroupName(name: string): string {
  if (!NAME.test(name))
    throw new GatewayError('invalid_parameter', 'A price group name is 1–100 letters, digits, ".", "_" or "-"', {
      param: 'name',
    });
  return name;
}

/**
 * `{multiplier?: number (default 1, up to 6 decimals), prices?: {model: price}}`; prices are checked against each
 * model's unit.
 */
export function parsePriceGroup(body: unknown, deps: Pick<AdminDeps, 'catalogue'>): PriceGroupInput {
  // The shapes and unknown fields are the schema's (bodies/price-groups.ts); the rules after it are not its.
  const o = priceGroupBody(body);
  const m = o.multiplier ?? 1;
  const ppm = Math.round(m * PPM);
  if (!Number.isSafeInteger(ppm) || Math.abs(ppm - m * PPM) > 1e-6) {
    throw new GatewayError('invalid_parameter', 'multiplier must be a number from 0 to 1000 with at most 6 decimals', {
      param: 'multiplier',
    });
  }
  const prices: Record<string, Price> = {};
  for (const [model, p] of Object.entries(o.prices ?? {})) {
    const entry = deps.catalogue.resolve(model)?.entry;
    if (!entry) throw new GatewayError('invalid_parameter', `Unknown model in prices: ${model}`, { param: 'prices' });
    prices[entry.id] = validatePrice(p, entry.price, `prices.${model}`);
  }
  return { multiplierPpm: ppm, prices };
}

export async function putPriceGroup(
  deps: AdminDeps,
  by: Actor,
  name: string,
  input: PriceGroupInput,
): Promise<{ group: PriceGroup; created: boolean }> {
  const created = await deps.repos.priceGroups.put({ name: checkGroupName(name), ...input });
  await deps.applyChange({ kind: 'price-groups-changed' });
  await audit(deps, by, created ? 'price_group.create' : 'price_group.update', name, {
    multiplier: input.multiplierPpm / PPM,
    models: Object.keys(input.prices),
  });
  return { group: (await deps.repos.priceGroups.get(name))!, created };
}

/** One page of the price groups, by name; `cursor` is the previous page's next_cursor. */
export async function priceGroupPage(
  deps: Pick<AdminDeps, 'repos'>,
  limit: number,
  cursor?: string,
): Promise<Page<ReturnType<typeof publicPriceGroup>>> {
  const after = cursor === undefined ? undefined : (decodeCursor(cursor, ['s'])[0] as string);
  const { data, more, next } = pageOf(await deps.repos.priceGroups.page(limit + 1, after), limit, (g) =>
    encodeCursor([g.name]),
  );
  return { data: data.map(publicPriceGroup), has_more: more, ...(next !== null ? { next_cursor: next } : {}) };
}

export async function getPriceGroup(deps: Pick<AdminDeps, 'repos'>, name: string): Promise<PriceGroup> {
  const g = await deps.repos.priceGroups.get(name);
  if (!g) throw new GatewayError('not_found', `Price group ${name} not found`);
  return g;
}
