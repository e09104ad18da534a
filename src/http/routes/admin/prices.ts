import type { FastifyInstance } from 'fastify';
import type { ModelEntry } from '../../../catalogue/types.ts';
import { isObject } from '../../../contracts/fields.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { loadCatalogue, readStoredOverrides, upsertOverride } from '../../../metering/catalogue-source.ts';
import { validatePrice } from '../../../metering/price-validation.ts';
import type { AppDeps } from '../../deps.ts';

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

async function overriddenPrices(deps: AppDeps): Promise<Set<string>> {
  const rows = await readStoredOverrides(deps.store.db);
  return new Set(rows.filter((r) => r.entry.price !== undefined).map((r) => r.model));
}

/** The catalogue entry a public name (alias, dated snapshot) stands for: prices live on the base model. */
function entryOf(deps: AppDeps, name: string): ModelEntry {
  const r = deps.catalogue.resolve(name);
  if (!r) throw new GatewayError('model_not_found', `Unknown model: ${name}`, { param: 'model' });
  return r.entry;
}

async function rebuild(deps: AppDeps): Promise<void> {
  // AppDeps.catalogue is reassigned: readers take deps.catalogue at call time (the meter through a getter).
  deps.catalogue = await loadCatalogue(deps.store.db, deps.config.catalogueFile);
  deps.cluster.publish({ kind: 'catalogue-changed' });
}

/**
 * Prices as data. GET /admin/prices lists every model with its live price (integer micro-units);
 * PUT /admin/prices/:model stores an override (body: the price object, or {"price": {...}}) and applies it at
 * once; DELETE /admin/prices/:model drops the stored override (back to the file/built-in price).
 */
export function registerPriceRoutes(scope: FastifyInstance, deps: AppDeps): void {
  scope.get('/prices', async () => {
    const overridden = await overriddenPrices(deps);
    return { object: 'list', unit: 'micro-units (1 unit = 1,000,000)', data: deps.catalogue.entries().map((e) => priceView(e, overridden)) };
  });

  scope.get<{ Params: { model: string } }>('/prices/:model', async (req) => {
    return priceView(entryOf(deps, req.params.model), await overriddenPrices(deps));
  });

  scope.put<{ Params: { model: string } }>('/prices/:model', async (req) => {
    const entry = entryOf(deps, req.params.model);
    const body = req.body;
    if (!isObject(body)) throw new GatewayError('invalid_request', 'Request body must be a JSON object: a price, or {"price": {...}}');
    const raw = body.unit === undefined && isObject(body.price) ? body.price : body;
    const price = validatePrice(raw, entry.price);
    await upsertOverride(deps.store.db, entry.id, { price });
    await rebuild(deps);
    await deps.repos.audit.write({ actor: 'admin', action: 'price.set', target: entry.id, detail: { price }, requestId: req.id });
    return priceView(deps.catalogue.get(entry.id) ?? entry, await overriddenPrices(deps));
  });

  scope.delete<{ Params: { model: string } }>('/prices/:model', async (req) => {
    const entry = entryOf(deps, req.params.model);
    await upsertOverride(deps.store.db, entry.id, {}, ['price']);
    await rebuild(deps);
    await deps.repos.audit.write({ actor: 'admin', action: 'price.reset', target: entry.id, requestId: req.id });
    return priceView(deps.catalogue.get(entry.id) ?? entry, await overriddenPrices(deps));
  });
}
