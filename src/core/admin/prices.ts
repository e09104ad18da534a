// Prices as data: every model's live price, and stored overrides that apply at once (on every instance) and can
// be dropped again (back to the file or built-in price).
import type { Kysely } from 'kysely';
import type { ModelEntry } from '../../catalogue/types.ts';
import { isObject } from '../../contracts/fields.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { readStoredOverrides, upsertOverride } from '../../metering/catalogue-source.ts';
import { validatePrice } from '../../metering/price-validation.ts';
import type { Database } from '../../store/schema.ts';
import { audit, type Actor, type AdminDeps } from './deps.ts';

export interface PriceDeps extends AdminDeps {
  readonly store: { readonly db: Kysely<Database> };
}

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
  if (!r) throw new GatewayError('model_not_found', `Unknown model: ${name}`, { param: 'model' });
  return r.entry;
}

/** The entry as it is after a change (the catalogue was reloaded). */
async function currentView(deps: PriceDeps, entry: ModelEntry) {
  return priceView(deps.catalogue.get(entry.id) ?? entry, await overriddenPrices(deps));
}

export async function listPrices(deps: PriceDeps) {
  const overridden = await overriddenPrices(deps);
  return { object: 'list', unit: 'micro-units (1 unit = 1,000,000)', data: deps.catalogue.entries().map((e) => priceView(e, overridden)) };
}

export async function getPrice(deps: PriceDeps, name: string) {
  return priceView(entryOf(deps, name), await overriddenPrices(deps));
}

/** Store an override; `body` is the price object, or {"price": {...}}. */
export async function setPrice(deps: PriceDeps, by: Actor, name: string, body: unknown) {
  const entry = entryOf(deps, name);
  if (!isObject(body)) throw new GatewayError('invalid_request', 'Request body must be a JSON object: a price, or {"price": {...}}');
  const raw = body.unit === undefined && isObject(body.price) ? body.price : body;
  const price = validatePrice(raw, entry.price);
  await upsertOverride(deps.store.db, entry.id, { price });
  await deps.applyChange({ kind: 'catalogue-changed' });
  await audit(deps, by, 'price.set', entry.id, { price });
  return currentView(deps, entry);
}

/** Drop the stored override: the file or built-in price applies again. */
export async function resetPrice(deps: PriceDeps, by: Actor, name: string) {
  const entry = entryOf(deps, name);
  await upsertOverride(deps.store.db, entry.id, {}, ['price']);
  await deps.applyChange({ kind: 'catalogue-changed' });
  await audit(deps, by, 'price.reset', entry.id);
  return currentView(deps, entry);
}
