// Price groups: a named group multiplies the catalogue (list) price of every model for the accounts in it, or sets a
// model's price outright. The list price is kept next to the price charged on every ledger line (docs/api.md,
// Price groups). The groups live in the store and are cached here, reloaded when an instance announces a change.
import type { ModelEntry } from '../catalogue/types.ts';
import { MAX_CHARGE, mulDivCeil, priceForEntry } from './prices.ts';
import type { Charge, Usage } from '../metering/types.ts';
import type { PriceGroup } from '../vocabulary/price.ts';

export const PPM = 1_000_000;

export type { PriceGroup } from '../vocabulary/price.ts';

/** The charge of `usage` on `entry` for an account in `group`: the group's price, the list amount kept beside it. */
export function groupCharge(
  entry: ModelEntry,
  usage: Usage,
  group: Pick<PriceGroup, 'name' | 'multiplierPpm' | 'prices'>,
): Charge {
  const list = priceForEntry(entry, usage);
  const own = group.prices[entry.id];
  if (own !== undefined) {
    const c = priceForEntry({ ...entry, price: own }, usage);
    return {
      ...c,
      unitPrices: { ...c.unitPrices, price_group: group.name },
      listAmount: list.amount,
      priceGroup: group.name,
    };
  }
  const amount = Math.min(mulDivCeil(list.amount, group.multiplierPpm, PPM), MAX_CHARGE);
  return {
    amount,
    quantities: list.quantities,
    unitPrices: { ...list.unitPrices, price_group: group.name, multiplier: group.multiplierPpm / PPM },
    listAmount: list.amount,
    priceGroup: group.name,
  };
}

/** The groups as this instance knows them (read on every charge of an account in a group: a map lookup). */
export class PriceGroups {
  private byName = new Map<string, PriceGroup>();

  constructor(private readonly load: () => Promise<PriceGroup[]>) {}

  async reload(): Promise<void> {
    this.byName = new Map((await this.load()).map((g) => [g.name, g]));
  }

  get(name: string): PriceGroup | undefined {
    return this.byName.get(name);
  }
}
