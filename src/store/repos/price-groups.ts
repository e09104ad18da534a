// Price groups (migration 018): named multipliers and per-model prices for the accounts in them.
import type { Kysely, Selectable } from 'kysely';
import type { Price, PriceGroup } from '../../vocabulary/price.ts';
import { parseJson } from '../json.ts';
import type { Database, PriceGroupsTable } from '../schema.ts';

const toGroup = (r: Selectable<PriceGroupsTable>): PriceGroup => ({
  name: r.name,
  multiplierPpm: Number(r.multiplier_ppm),
  prices: parseJson<Record<string, Price>>(r.prices) ?? {},
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export class PriceGroupsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async all(): Promise<PriceGroup[]> {
    const rows = await this.db.selectFrom('price_groups').selectAll().orderBy('name').execute();
    return rows.map(toGroup);
  }

  /** Up to `limit` groups by name, after the name `after` when given. */
  async page(limit: number, after?: string): Promise<PriceGroup[]> {
    let q = this.db.selectFrom('price_groups').selectAll();
    if (after !== undefined) q = q.where('name', '>', after);
    const rows = await q.orderBy('name').limit(limit).execute();
    return rows.map(toGroup);
  }

  async get(name: string): Promise<PriceGroup | null> {
    return (await this.all()).find((g) => g.name === name) ?? null;
  }

  /** Create or replace a group; true when it was created. */
  async put(
    g: { name: string; multiplierPpm: number; prices: Record<string, Price> },
    now = Date.now(),
  ): Promise<boolean> {
    const prices = Object.keys(g.prices).length ? JSON.stringify(g.prices) : null;
    const r = await this.db
      .updateTable('price_groups')
      .set({ multiplier_ppm: g.multiplierPpm, prices, updated_at: now })
      .where('name', '=', g.name)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) > 0) return false;
    await this.db
      .insertInto('price_groups')
      .values({ name: g.name, multiplier_ppm: g.multiplierPpm, prices, created_at: now, updated_at: now })
      .execute();
    return true;
  }
}
