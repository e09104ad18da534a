// Aggregates of the request log over a time range for the console's overview: counts, errors and amounts per time
// bucket, per model and per token. Closed buckets are rolled up once into request_stats_buckets (migration 009) and
// read from there; only the newest, still open part of a range is grouped from the log itself, on its time index.
import { sql, type Kysely } from 'kysely';
import { sumText } from '../../vocabulary/exact-amount.ts';
import type { Database } from '../schema.ts';

export interface Totals {
  requests: number;
  errors: number;
  /** Exact: a sum over many tokens can pass 2^53 − 1 (vocabulary/exact-amount.ts). */
  amount: bigint;
}

/** One range's figures: per bucket number (created_at / bucketMs), per model and per token ('' = none). */
export interface RangeFigures {
  buckets: Map<number, Totals>;
  models: Map<string, Totals>;
  tokens: Map<string, Totals>;
}

const errors = sql<number>`sum(case when status >= 400 then 1 else 0 end)`;
const totals = (r: { requests: unknown; errors: unknown; amount: unknown }): Totals => ({
  requests: Number(r.requests),
  errors: Number(r.errors),
  amount: BigInt(String(r.amount)),
});
/** A sum of amounts read exactly (as decimal text). */
const amountSum = sumText(sql`amount`);

function add(into: Map<string | number, Totals>, key: string | number, t: Totals): void {
  const o = into.get(key);
  if (!o) into.set(key, { ...t });
  else {
    o.requests += t.requests;
    o.errors += t.errors;
    o.amount += t.amount;
  }
}

export function mergeFigures(a: RangeFigures, b: RangeFigures): RangeFigures {
  for (const [k, t] of b.buckets) add(a.buckets as Map<string | number, Totals>, k, t);
  for (const [k, t] of b.models) add(a.models as Map<string | number, Totals>, k, t);
  for (const [k, t] of b.tokens) add(a.tokens as Map<string | number, Totals>, k, t);
  return a;
}

export class RequestStatsRepo {
  constructor(
    /** Where the rollup is written. */
    private readonly db: Kysely<Database>,
    /** Where the aggregations are read (the read thread on a SQLite file store). */
    private readonly reads: Kysely<Database> = db,
  ) {}

  /**
   * Per answering channel since `since` (a few recent minutes, on the log's time index): requests, errors (the
   * gateway's 5xx answers: what a channel's trouble turns into) and the mean latency.
   */
  async channels(
    since: number,
  ): Promise<Array<{ channelId: string; requests: number; errors: number; meanLatencyMs: number }>> {
    const rows = await this.reads
      .selectFrom('request_log')
      .where('created_at', '>=', since)
      .where('channel_id', 'is not', null)
      .select([
        'channel_id',
        sql<number>`count(*)`.as('requests'),
        sql<number>`sum(case when status >= 500 then 1 else 0 end)`.as('errors'),
        sql<number>`avg(latency_ms)`.as('latency'),
      ])
      .groupBy('channel_id')
      .execute();
    return rows.map((r) => ({
      channelId: String(r.channel_id),
      requests: Number(r.requests),
      errors: Number(r.errors),
      meanLatencyMs: Math.round(Number(r.latency)),
    }));
  }

  /** Figures of [since, until) grouped from the request log itself (the open part of a range). */
  async live(since: number, until: number, bucketMs: number): Promise<RangeFigures> {
    const out: RangeFigures = { buckets: new Map(), models: new Map(), tokens: new Map() };
    if (until <= since) return out;
    // A literal so PostgreSQL sees the same expression in SELECT and GROUP BY (as in ledger.ts).
    const bucket = sql<number>`created_at / ${sql.lit(bucketMs)}`;
    const rows = await this.reads
      .selectFrom('request_log')
      .where('created_at', '>=', since)
      .where('created_at', '<', until)
      .select([
        bucket.as('bucket'),
        'model',
        'token_id',
        sql<number>`count(*)`.as('requests'),
        errors.as('errors'),
        amountSum.as('amount'),
      ])
      .groupBy([bucket, 'model', 'token_id'])
      .execute();
    for (const r of rows) {
      const t = totals(r);
      add(out.buckets as Map<string | number, Totals>, Math.floor(Number(r.bucket)), t);
      add(out.models as Map<string | number, Totals>, r.model ?? '', t);
      add(out.tokens as Map<string | number, Totals>, r.token_id ?? '', t);
    }
    return out;
  }

  /**
   * Figures of the closed buckets [first, end) of size bucketMs, from the rollup: buckets not rolled up yet are
   * first (in one transaction per run of them), and rolled-up buckets before `first` are dropped.
   */
  async closed(bucketMs: number, first: number, end: number): Promise<RangeFigures> {
    await this.fill(bucketMs, first, end);
    const range = () =>
      this.reads
        .selectFrom('request_stats_buckets')
        .where('bucket_ms', '=', bucketMs)
        .where('bucket', '>=', first)
        .where('bucket', '<', end);
    const sums = [
      sql<number>`sum(requests)`.as('requests'),
      sql<number>`sum(errors)`.as('errors'),
      amountSum.as('amount'),
    ] as const;
    const [b, m, t] = await Promise.all([
      range()
        .select(['bucket', ...sums])
        .groupBy('bucket')
        .execute(),
      range()
        .select(['model', ...sums])
        .groupBy('model')
        .execute(),
      range()
        .select(['token_id', ...sums])
        .groupBy('token_id')
        .execute(),
    ]);
    return {
      buckets: new Map(b.map((r) => [Number(r.bucket), totals(r)])),
      models: new Map(m.map((r) => [r.model, totals(r)])),
      tokens: new Map(t.map((r) => [r.token_id, totals(r)])),
    };
  }

  private async fill(bucketMs: number, first: number, end: number): Promise<void> {
    await this.db
      .deleteFrom('request_stats_buckets')
      .where('bucket_ms', '=', bucketMs)
      .where('bucket', '<', first)
      .execute();
    await this.db
      .deleteFrom('request_stats_filled')
      .where('bucket_ms', '=', bucketMs)
      .where('bucket', '<', first)
      .execute();
    if (end <= first) return;
    const done = await this.db
      .selectFrom('request_stats_filled')
      .select('bucket')
      .where('bucket_ms', '=', bucketMs)
      .where('bucket', '>=', first)
      .where('bucket', '<', end)
      .execute();
    const have = new Set(done.map((r) => Number(r.bucket)));
    for (let b = first; b < end; b++) {
      if (have.has(b)) continue;
      // One bucket per statement, and the event loop served between them: on SQLite a query holds the process
      // (better-sqlite3 is synchronous), so a month's first roll-up must not be one long statement.
      await this.rollUp(bucketMs, b, b + 1);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Roll up buckets [a, b): their groups and their marks in one transaction; another instance doing the same wins or
   * loses whole.
   */
  private async rollUp(bucketMs: number, a: number, b: number): Promise<void> {
    const bucket = sql<number>`created_at / ${sql.lit(bucketMs)}`;
    const model = sql<string>`coalesce(model, '')`;
    const token = sql<string>`coalesce(token_id, '')`;
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('request_stats_buckets')
        .columns(['bucket_ms', 'bucket', 'model', 'token_id', 'requests', 'errors', 'amount'])
        .expression(
          trx
            .selectFrom('request_log')
            .select([
              sql<number>`${sql.lit(bucketMs)}`.as('bucket_ms'),
              bucket.as('bucket'),
              model.as('model'),
              token.as('token_id'),
              sql<number>`count(*)`.as('requests'),
              errors.as('errors'),
              sql<number>`sum(amount)`.as('amount'),
            ])
            .where('created_at', '>=', a * bucketMs)
            .where('created_at', '<', b * bucketMs)
            .groupBy([bucket, model, token]),
        )
        .onConflict((oc) => oc.doNothing())
        .execute();
      for (let i = a; i < b; i += 500) {
        const marks = Array.from({ length: Math.min(500, b - i) }, (_, k) => ({ bucket_ms: bucketMs, bucket: i + k }));
        await trx
          .insertInto('request_stats_filled')
          .values(marks)
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
    });
  }
}
