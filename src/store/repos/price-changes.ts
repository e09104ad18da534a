// The price history table (migration 010): a row is written inside the override's own transaction
// (pricing/price-overrides.ts); reads list one model's changes, newest first, by id.
import type { Kysely, Transaction } from 'kysely';
import type { Price } from '../../vocabulary/price.ts';
import { parseJson } from '../json.ts';
import type { Database } from '../schema.ts';

export interface PriceChange {
  id: number;
  model: string;
  action: 'set' | 'reset';
  /** The effective price before and after the change; null when the model had none. */
  old_price: Price | null;
  new_price: Price | null;
  actor: string;
  request_id: string | null;
  at: number;
}

export type NewPriceChange = Omit<PriceChange, 'id'>;

export async function insertPriceChange(
  db: Kysely<Database> | Transaction<Database>,
  c: NewPriceChange,
): Promise<void> {
  const json = (p: Price | null) => (p === null ? null : JSON.stringify(p));
  await db
    .insertInto('price_changes')
    .values({
      model: c.model,
      action: c.action,
      old_price: json(c.old_price),
      new_price: json(c.new_price),
      actor: c.actor,
      request_id: c.request_id,
      at: c.at,
    })
    .execute();
}

/** One model's changes, newest first; `beforeId` continues after the last row of the previous page. */
export async function listPriceChanges(
  db: Kysely<Database>,
  f: { model: string; beforeId?: number; limit: number },
): Promise<PriceChange[]> {
  let q = db.selectFrom('price_changes').selectAll().where('model', '=', f.model);
  if (f.beforeId !== undefined) q = q.where('id', '<', f.beforeId);
  const rows = await q.orderBy('id', 'desc').limit(f.limit).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    model: r.model,
    action: r.action === 'reset' ? 'reset' : 'set',
    old_price: parseJson<Price>(r.old_price),
    new_price: parseJson<Price>(r.new_price),
    actor: r.actor,
    request_id: r.request_id,
    at: Number(r.at),
  }));
}
