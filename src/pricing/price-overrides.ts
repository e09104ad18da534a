// A price change by the operator: the stored override and its history row in one transaction, so the history has
// neither a change that did not happen nor a missing one. The history records effective prices: what the model
// cost before and after, whether that came from an override or from the catalogue file / built-in layer.
import type { Kysely } from 'kysely';
import type { Price } from '../catalogue/types.ts';
import { insertPriceChange } from '../store/repos/price-changes.ts';
import type { Database } from '../store/schema.ts';
import { writeOverride } from './catalogue-source.ts';

export interface PriceChangeInput {
  model: string;
  /** The new override, or null to drop it (the file or built-in price applies again). */
  price: Price | null;
  /** The model's price without a stored override (file ← built-in), null when that layer has none. */
  basePrice: Price | null;
  actor: string;
  requestId: string | null;
}

/**
 * Store or drop a model's price override and record the change. Answers whether anything changed: dropping an
 * override that is not there records nothing.
 */
export async function changePriceOverride(
  db: Kysely<Database>,
  c: PriceChangeInput,
  now = Date.now(),
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const before = c.price
      ? await writeOverride(trx, c.model, { price: c.price })
      : await writeOverride(trx, c.model, {}, ['price']);
    if (!c.price && before.price === undefined) return false;
    await insertPriceChange(trx, {
      model: c.model,
      action: c.price ? 'set' : 'reset',
      old_price: before.price ?? c.basePrice,
      new_price: c.price ?? c.basePrice,
      actor: c.actor,
      request_id: c.requestId,
      at: now,
    });
    return true;
  });
}
