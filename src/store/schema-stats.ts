// The overview's figures: closed request-log time buckets rolled up, and which buckets are filled.

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
