// Where the live catalogue comes from: built-in defaults, then the operator's catalogue file
// (TOLLWAY_CATALOGUE_FILE), then overrides stored by the admin API (catalogue_overrides). Later layers win,
// field by field at the top level (a `price` is replaced whole). Rebuilt whenever the admin API edits a price.
import { readFileSync } from 'node:fs';
import type { Kysely, Transaction } from 'kysely';
import { applyOverrides, Catalogue } from '../catalogue/catalogue.ts';
import { DEFAULT_CATALOGUE } from '../catalogue/default-catalogue.ts';
import type { ModelEntry, Price } from '../catalogue/types.ts';
import { validateVidxEndpoints } from '../catalogue/vidx-endpoints.ts';
import { ConfigError } from '../config/config.ts';
import { isGatewayError } from '../errors/gateway-error.ts';
import { parseJson } from '../store/json.ts';
import type { Database } from '../store/schema.ts';
import { validatePrice } from './price-validation.ts';
import { checkVideoTiers } from './video-price-validation.ts';
import { isObject } from '../json/json.ts';

export interface CatalogueOverride {
  model: string;
  entry: Partial<ModelEntry>;
}

const ENTRY_KEYS = [
  'kind',
  'upstream',
  'upstreamModel',
  'ownedBy',
  'price',
  'capabilities',
  'video',
  'snapshots',
  'aliases',
  'hidden',
  'vidx',
] as const;

/**
 * Check one partial entry (file item or stored override) against the model it changes. Throws a message that
 * names the field. Prices and family A endpoint data (vidx) are validated fully; the other fields by type.
 */
export function validateOverrideEntry(
  model: string,
  raw: Record<string, unknown>,
  base: ModelEntry | undefined,
): Partial<ModelEntry> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'model' || k === 'id') continue;
    if (!(ENTRY_KEYS as readonly string[]).includes(k))
      throw new Error(`${model}: unknown field "${k}" (allowed: model, ${ENTRY_KEYS.join(', ')})`);
    const bad = (want: string) => new Error(`${model}: ${k} must be ${want}`);
    switch (k) {
      case 'price':
        out.price = validatePrice(v, base?.price);
        break;
      case 'kind':
      case 'upstreamModel':
      case 'ownedBy':
        if (typeof v !== 'string' || v === '') throw bad('a non-empty string');
        out[k] = v;
        break;
      case 'upstream':
        if (v !== 'dashscope' && v !== 'kling') throw bad('"dashscope" or "kling"');
        out[k] = v;
        break;
      case 'snapshots':
      case 'hidden':
        if (typeof v !== 'boolean') throw bad('a boolean');
        out[k] = v;
        break;
      case 'aliases':
        if (!Array.isArray(v) || !v.every((a) => typeof a === 'string')) throw bad('an array of strings');
        out[k] = v;
        break;
      case 'vidx':
        out.vidx = validateVidxEndpoints(model, v);
        break;
      case 'capabilities':
      case 'video':
        if (!isObject(v)) throw bad('an object');
        out[k] = v;
        break;
    }
  }
  // A new model's video price is checked against its kind (a built-in one's against its current price).
  const price = out.price as Price | undefined;
  if (!base && price?.unit === 'video') checkVideoTiers(price, out.kind === 'video' ? 'resolution' : 'mode', 'price');
  if (
    !base &&
    !(
      typeof out.kind === 'string' &&
      typeof out.upstream === 'string' &&
      typeof out.upstreamModel === 'string' &&
      out.price
    )
  ) {
    throw new Error(`${model}: not a built-in model, so kind, upstream, upstreamModel and price are all required`);
  }
  return out as Partial<ModelEntry>;
}

/** Read and validate the catalogue file: a JSON array of {model, ...partial entry}. Errors are ConfigErrors. */
export function readCatalogueFile(path: string): CatalogueOverride[] {
  return parseCatalogueFile(path, catalogueFileText(path));
}

function catalogueFileText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`TOLLWAY_CATALOGUE_FILE ${path} cannot be read: ${(e as Error).message}`);
  }
}

function parseCatalogueFile(path: string, text: string): CatalogueOverride[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`TOLLWAY_CATALOGUE_FILE ${path} is not valid JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(json))
    throw new ConfigError(`TOLLWAY_CATALOGUE_FILE ${path} must hold a JSON array of {"model": …, …entry fields}`);
  const base = new Map(DEFAULT_CATALOGUE.map((e) => [e.id, e]));
  const seen = new Set<string>();
  return json.map((item, i) => {
    if (!isObject(item) || typeof item.model !== 'string' || item.model === '') {
      throw new ConfigError(`TOLLWAY_CATALOGUE_FILE ${path}: item ${i} must be an object with a "model" string`);
    }
    if (seen.has(item.model))
      throw new ConfigError(`TOLLWAY_CATALOGUE_FILE ${path}: model ${item.model} appears twice`);
    seen.add(item.model);
    try {
      return { model: item.model, entry: validateOverrideEntry(item.model, item, base.get(item.model)) };
    } catch (e) {
      const msg = isGatewayError(e) ? `${item.model}: ${e.message}` : (e as Error).message;
      throw new ConfigError(`TOLLWAY_CATALOGUE_FILE ${path}: item ${i}: ${msg}`);
    }
  });
}

interface StoredOverrideRow {
  model: string;
  entry: string;
}

const storedOverrideRows = (db: Kysely<Database>): Promise<StoredOverrideRow[]> =>
  db.selectFrom('catalogue_overrides').select(['model', 'entry']).orderBy('model').execute();
const toOverrides = (rows: StoredOverrideRow[]): CatalogueOverride[] =>
  rows.map((r) => ({ model: r.model, entry: parseJson<Partial<ModelEntry>>(r.entry) ?? {} }));

export async function readStoredOverrides(db: Kysely<Database>): Promise<CatalogueOverride[]> {
  return toOverrides(await storedOverrideRows(db));
}

/** The entries before stored overrides: defaults ← file (what a model falls back to when its override is dropped). */
export function baseEntries(catalogueFile: string | undefined): ModelEntry[] {
  return baseFrom(catalogueFile, catalogueFile ? catalogueFileText(catalogueFile) : '');
}

/** Defaults ← the catalogue file, given the file's text (already read). */
function baseFrom(catalogueFile: string | undefined, text: string): ModelEntry[] {
  return applyOverrides(DEFAULT_CATALOGUE, catalogueFile ? parseCatalogueFile(catalogueFile, text) : []);
}

/**
 * What each live catalogue was built from (the file's text and the stored override rows), to tell whether a reload
 * changes anything.
 */
const builtFrom = new WeakMap<Catalogue, string>();

/**
 * Build the live catalogue: defaults ← file ← stored overrides. Given the catalogue in use, answers that same object
 * when neither the file nor the stored overrides changed: the periodic re-read then leaves the hot path's objects
 * (and the routing caches keyed by them) alone.
 */
export async function loadCatalogue(
  db: Kysely<Database>,
  catalogueFile: string | undefined,
  current?: Catalogue,
): Promise<Catalogue> {
  const text = catalogueFile ? catalogueFileText(catalogueFile) : '';
  const rows = await storedOverrideRows(db);
  const source = JSON.stringify([catalogueFile ?? null, text, rows.map((r) => [r.model, r.entry])]);
  if (current && builtFrom.get(current) === source) return current;
  const catalogue = new Catalogue(applyOverrides(baseFrom(catalogueFile, text), toOverrides(rows)));
  builtFrom.set(catalogue, source);
  return catalogue;
}

/** Store (merge) fields of a model's override; other stored fields of that model are kept. */
export async function upsertOverride(
  db: Kysely<Database>,
  model: string,
  patch: Partial<ModelEntry>,
  remove: Array<keyof ModelEntry> = [],
): Promise<void> {
  await db.transaction().execute((trx) => writeOverride(trx, model, patch, remove));
}

/**
 * Merge a patch into a model's stored override inside the caller's transaction; answers the override as it was.
 * The row is locked first (an upsert that touches it), so concurrent changes of one model take turns and each sees
 * the one before it.
 */
export async function writeOverride(
  trx: Transaction<Database>,
  model: string,
  patch: Partial<ModelEntry>,
  remove: Array<keyof ModelEntry> = [],
): Promise<Partial<ModelEntry>> {
  const now = Date.now();
  await trx
    .insertInto('catalogue_overrides')
    .values({ model, entry: '{}', updated_at: now })
    .onConflict((oc) =>
      oc.column('model').doUpdateSet({ updated_at: (eb) => eb.ref('catalogue_overrides.updated_at') }),
    )
    .execute();
  const row = await trx.selectFrom('catalogue_overrides').select('entry').where('model', '=', model).executeTakeFirst();
  const before = parseJson<Partial<ModelEntry>>(row?.entry) ?? {};
  const cur: Record<string, unknown> = { ...before, ...patch };
  for (const k of remove) delete cur[k];
  if (Object.keys(cur).length === 0) {
    await trx.deleteFrom('catalogue_overrides').where('model', '=', model).execute();
    return before;
  }
  const entry = JSON.stringify(cur);
  await trx.updateTable('catalogue_overrides').set({ entry, updated_at: now }).where('model', '=', model).execute();
  return before;
}
