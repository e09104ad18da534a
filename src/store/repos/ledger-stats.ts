// The ledger's spend over a time range for the console's overview and /admin/stats: charges (every kind but
// `credit`: chat, image, video tasks' settlements alike) per time bucket, per model and per token. The overview's
// money comes from here, so it equals the ledger's (bills read the same lines); the request log gives the counts.
import { sql, type Kysely } from 'kysely';
import { sumText } from '../../vocabulary/exact-amount.ts';
import type { Database } from '../schema.ts';

/** One range's charges: per bucket number (created_at / bucketMs), per model and per token; exact sums. */
export interface SpendFigures {
  buckets: Map<number, bigint>;
  models: Map<string, bigint>;
  tokens: Map<string, bigint>;
  /** Per ledger kind (tokens, images, video …). */
  kinds: Map<string, bigint>;
}

function add<K>(into: Map<K, bigint>, key: K, v: bigint): void {
  into.set(key, (into.get(key) ?? 0n) + v);
}

export class LedgerStatsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** The charges written in [since, until), grouped on the ledger's time index (migration 070). */
  async spend(since: number, until: number, bucketMs: number): Promise<SpendFigures> {
    const out: SpendFigures = { buckets: new Map(), models: new Map(), tokens: new Map(), kinds: new Map() };
    if (until <= since) return out;
    // A literal so PostgreSQL sees the same expression in SELECT and GROUP BY (as in ledger.ts).
    const bucket = sql<number>`created_at / ${sql.lit(bucketMs)}`;
    const rows = await this.db
      .selectFrom('ledger')
      .where('created_at', '>=', since)
      .where('created_at', '<', until)
      .where('kind', '<>', 'credit')
      .select([bucket.as('bucket'), 'model', 'token_id', 'kind', sumText(sql`amount`).as('amount')])
      .groupBy([bucket, 'model', 'token_id', 'kind'])
      .execute();
    for (const r of rows) {
      const v = BigInt(r.amount);
      add(out.buckets, Math.floor(Number(r.bucket)), v);
      add(out.models, r.model, v);
      add(out.tokens, r.token_id, v);
      add(out.kinds, r.kind, v);
    }
    return out;
  }
}
