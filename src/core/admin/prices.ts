// Prices as data: every model's live price, and stored overrides that apply at once (on every instance) and can
// be dropped again (back to the file or built-in price). Each change is kept in the price history with the
// effective price before and after it.
import { echo } from '../../errors/echo.ts';
import type { Kysely } from 'kysely';
import type { ModelEntry } from '../../catalogue/types.ts';
import { decodeCursor, encodeCursor } from '../../contracts/cursor.ts';
import { isObject } from '../../json/json.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { baseEntries, readStoredOverrides } from '../../pricing/catalogue-source.ts';
import { changePriceOverride } from '../../pricing/price-overrides.ts';
import { validatePrice } from '../../pricing/price-validation.ts';
import { priceBody } from './bodies/prices.ts';
import { listPriceChanges, type PriceChange } from '../../store/repos/price-changes.ts';
import type { Database } from '../../store/schema.ts';
import { actorName, audit, type Actor, type AdminDeps } from './deps.ts';
import { pageOf, type Page } from './lists.ts';

export interface PriceDeps extends AdminDeps {
  readonly store: { readonly db: Kysely<Database> };
  /** The catalogue file: a dropped override falls back to its price (or the built-in one). */
  readonly config: { readonly catalogueFile: string | undefined };
}

const UNIT = 'micro-units (1 unit = 1,000,000)';

function priceView(e: ModelEntry, overridden: Set<string>) {
  return {
    model: e.id,
    kind: e.kind,
    owned_by: e.ownedBy,
    price: e.price,
    ...(e.video ? { default_resolution: e.video.defaultResolution } : {}),
    ...(e.snapshots ? { snapshots: true } : {}),
    ...(e.aliases?.length ? { aliases: e.aliases } : {}),
    ...(e.hidden ? { hidden: true } : {}),
    price_overridden: overridden.has(e.id),
  };
}

async function overriddenPrices(deps: PriceDeps): Promise<Set<string>> {
  const rows = await readStoredOverrides(deps.store.db);
  return new Set(rows.filter((r) => r.entry.price !== undefined).map((r) => r.model));
}

/** The catalogue entry a public name (alias, dated snapshot) stands for: prices live on the base model. */
function entryOf(deps: PriceDeps, name: string): ModelEntry {
  const r = deps.catalogue.resolve(name);
  if (!r) throw new GatewayError('model_not_found', `Unknown model: ${echo(name)}`, { param: 'model' });
  return r.entry;
}

/** The entry as it is after a change (the catalogue was reloaded). */
async function currentView(deps: PriceDeps, entry: ModelEntry) {
  return priceView(deps.catalogue.get(entry.id) ?? entry, await overriddenPrices(deps));
}

/** Store or drop the override with its history row, then apply it on every instance and audit it. */
async function change(deps: PriceDeps, by: Actor, entry: ModelEntry, price: ModelEntry['price'] | null): Promise<void> {
  const basePrice = baseEntries(deps.config.catalogueFile).find((e) => e.id === entry.id)?.price ?? null;
  await changePriceOverride(deps.store.db, {
    model: entry.id,
    price,
    basePrice,
    actor: actorName(by),
    requestId: by.requestId ?? null,
  });
  await deps.applyChange({ kind: 'catalogue-changed' });
}

/** One page of the models' prices, by model id; `cursor` is the previous page's next_cursor. */
export async function listPrices(deps: PriceDeps, limit: number, cursor?: string) {
  const after = cursor === undefined ? undefined : (decodeCursor(cursor, ['s'])[0] as string);
  const entries = deps.catalogue
    .entries()
    .filter((e) => after === undefined || e.id > after)
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const { data, more, next } = pageOf(entries.slice(0, limit + 1), limit, (e) => encodeCursor([e.id]));
  const overridden = await overriddenPrices(deps);
  return {
    object: 'list',
    unit: UNIT,
    data: data.map((e) => priceView(e, overridden)),
    has_more: more,
    ...(next !== null ? { next_cursor: next } : {}),
  };
}

export async function getPrice(deps: PriceDeps, name: string) {
  return priceView(entryOf(deps, name), await overriddenPrices(deps));
}

/** Store an override; `body` is the price object, or {"price": {...}}. */
export async function setPrice(deps: PriceDeps, by: Actor, name: string, body: unknown) {
  const entry = entryOf(deps, name);
  if (!isObject(body))
    throw new GatewayError('invalid_request', 'Request body must be a JSON object: a price, or {"price": {...}}');
  const raw = body.unit === undefined && isObject(body.price) ? body.price : body;
  try {
    priceBody(body);
  } catch (refused) {
    // The pricing validator names the field inside the price (`price.perImage`); the union's refusal cannot.
    validatePrice(raw, entry.price);
    throw refused;
  }
  const price = validatePrice(raw, entry.price);
  await change(deps, by, entry, price);
  await audit(deps, by, 'price.set', entry.id, { price });
  return currentView(deps, entry);
}

/** Drop the stored override: the file or built-in price applies again. */
export async function resetPrice(deps: PriceDeps, by: Actor, name: string) {
  const entry = entryOf(deps, name);
  await change(deps, by, entry, null);
  await audit(deps, by, 'price.reset', entry.id);
  return currentView(deps, entry);
}

/** A model's price changes, newest first, one page at a time (`beforeId`: from the previous page's cursor). */
export async function priceHistory(
  deps: PriceDeps,
  name: string,
  page: { beforeId?: number; limit: number },
): Promise<Page<PriceChange> & { object: 'list'; model: string; unit: string }> {
  const entry = entryOf(deps, name);
  const rows = await listPriceChanges(deps.store.db, {
    model: entry.id,
    ...(page.beforeId !== undefined ? { beforeId: page.beforeId } : {}),
    limit: page.limit + 1,
  });
  const { data, more, next } = pageOf(rows, page.limit, (r) => encodeCursor([r.id]));
  return {
    object: 'list',
    model: entry.id,
    unit: UNIT,
    data,
    has_more: more,
    ...(next !== null ? { next_cursor: next } : {}),
  };
}
