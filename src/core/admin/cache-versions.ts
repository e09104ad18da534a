// What the periodic refresh reads first: a version per cached table (migration 081), moved by the database on every
// write, so a refresh while nothing changed is one small read instead of reloading every cache.
import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';

/** The cache change each table's version stands for. */
export type CacheReload = 'channels-changed' | 'catalogue-changed' | 'price-groups-changed';
const RELOADS: Readonly<Record<string, CacheReload>> = {
  channels: 'channels-changed',
  catalogue_overrides: 'catalogue-changed',
  price_groups: 'price-groups-changed',
};

/** A table whose version moved since its cache was last reloaded from it. */
export interface Moved {
  kind: CacheReload;
  /** Record the reload as done: the table is skipped until its version moves again. */
  done: () => void;
}

/** The versions this instance's caches were last reloaded at; every table counts as moved until its first reload. */
export class CacheVersions {
  private readonly read: CompiledQuery<{ name: string; version: number | string }>;
  private readonly loaded = new Map<string, string>();

  constructor(private readonly db: Kysely<Database>) {
    this.read = db.selectFrom('cache_versions').select(['name', 'version']).compile();
  }

  /**
   * The tables written since their last reload. The versions are read before the reload, so a write that lands during
   * it moves the version again and the next refresh reloads once more: no write is missed.
   */
  async moved(): Promise<Moved[]> {
    const out: Moved[] = [];
    for (const r of (await this.db.executeQuery(this.read)).rows) {
      const kind = RELOADS[r.name];
      const v = String(r.version);
      if (kind && this.loaded.get(r.name) !== v) out.push({ kind, done: () => this.loaded.set(r.name, v) });
    }
    return out;
  }
}
