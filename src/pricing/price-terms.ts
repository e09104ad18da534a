// The prices a task is charged at, fixed when it is created (kept on its hold, migration 023): the model's list
// price and its price group's terms at that moment. A later change of the model's price, of the group, or of the
// account's group applies to what is created from then on, never to a task already running.
import type { ModelEntry, Price } from '../catalogue/types.ts';
import { isObject } from '../json/json.ts';
import { groupCharge, type PriceGroup } from './price-groups.ts';
import { priceForEntry } from './prices.ts';
import { validatePrice } from './price-validation.ts';
import type { Charge, Usage } from '../metering/types.ts';

export interface PriceTerms {
  /** The model's list (catalogue) price. */
  list: Price;
  /** The group that priced it: its multiplier and the model's own price in it, if it set one. */
  group: { name: string; multiplierPpm: number; own: Price | null } | null;
}

/** The terms `entry` is priced at now, for an account in `group` (none: list price). */
export function termsOf(entry: ModelEntry, group: PriceGroup | undefined): PriceTerms {
  if (!group) return { list: entry.price, group: null };
  return {
    list: entry.price,
    group: { name: group.name, multiplierPpm: group.multiplierPpm, own: group.prices[entry.id] ?? null },
  };
}

/** The charge of `usage` on `entry` at the terms fixed earlier (the entry's other rules — its defaults — as now). */
export function chargeAt(entry: ModelEntry, usage: Usage, terms: PriceTerms): Charge {
  const at = { ...entry, price: terms.list };
  const g = terms.group;
  if (!g) return priceForEntry(at, usage);
  return groupCharge(at, usage, {
    name: g.name,
    multiplierPpm: g.multiplierPpm,
    prices: g.own ? { [entry.id]: g.own } : {},
  });
}

/** Stored terms read back; null when absent or unreadable (the settlement then prices as of now). */
export function parseTerms(text: string | null): PriceTerms | null {
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    if (!isObject(v)) return null;
    const list = validatePrice(v.list);
    const g = v.group;
    if (g === null) return { list, group: null };
    if (
      !isObject(g) ||
      typeof g.name !== 'string' ||
      typeof g.multiplierPpm !== 'number' ||
      !Number.isSafeInteger(g.multiplierPpm) ||
      g.multiplierPpm < 0
    )
      return null;
    return {
      list,
      group: { name: g.name, multiplierPpm: g.multiplierPpm, own: g.own == null ? null : validatePrice(g.own) },
    };
  } catch {
    return null;
  }
}
