// Aggregates of the request log over a time range, computed in the database on its time index (migration 009):
// counts, errors and amounts per time bucket, and the busiest models and tokens.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export interface BucketRow {
  /** Bucket number: created_at / bucketMs, rounded down. */
  bucket: number;
  requests: number;
  errors: number;
  amount: number;
}

export interface TopRow {
  key: string | null;
  requests: number;
  errors: number;
  amount: number;
}

const errors = sql<number>`sum(case when status >= 400 then 1 else 0 end)`;

export class RequestStatsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  private range(since: number, until: number) {
    return this.db.selectFrom('request_log').where('created_at', '>=', since).where('created_at', '<', until);
  }

  async buckets(since: number, until: number, bucketMs: number): Promise<BucketRow[]> {
    // A literal so PostgreSQL sees the same expression in SELECT and GROUP BY (as in ledger.ts).
    const bucket = sql<number>`created_at / ${sql.lit(bucketMs)}`;
    const rows = await this.range(since, until)
      .select([bucket.as('bucket'), sql<number>`count(*)`.as('requests'), errors.as('errors'), sql<number>`sum(amount)`.as('amount')])
      .groupBy(bucket)
      .execute();
    return rows.map((r) => ({ bucket: Math.floor(Number(r.bucket)), requests: Number(r.requests), errors: Number(r.errors), amount: Number(r.amount) }));
  }

  async top(column: 'model' | 'token_id', since: number, until: number, limit: number): Promise<TopRow[]> {
    const rows = await this.range(since, until)
      .select([sql.ref<string | null>(column).as('key'), sql<number>`count(*)`.as('requests'), errors.as('errors'), sql<number>`sum(amount)`.as('amount')])
      .groupBy(column)
      .orderBy(sql`count(*)`, 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ key: r.key, requests: Number(r.requests), errors: Number(r.errors), amount: Number(r.amount) }));
  }
}
