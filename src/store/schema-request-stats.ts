// The operator overview's rollup of the request log (migration 009): store/repos/request-stats.ts.

/** The overview's rollup of closed request-log time buckets (migration 009); model and token_id '' for none. */
export interface RequestStatsBucketsTable {
  bucket_ms: number;
  bucket: number;
  model: string;
  token_id: string;
  requests: number;
  errors: number;
  amount: number;
}

export interface RequestStatsFilledTable {
  bucket_ms: number;
  bucket: number;
}
