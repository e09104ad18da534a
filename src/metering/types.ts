// The metering API every capability uses. Money is integer micro-units; the ledger is the authority.

export type VideoTier = '720p' | '1080p';
export type ModeTier = 'std' | 'pro';

/** Provider-reported (or produced) quantities for one call or task. */
export type Usage =
  | { kind: 'tokens'; inputTokens: number; outputTokens: number; cachedTokens?: number; cacheCreationTokens?: number }
  | { kind: 'images'; images: number }
  /** /v1/videos: output seconds (and input seconds for edit models) at a resolution tier. */
  | { kind: 'video'; outputSeconds: number; inputSeconds?: number; tier: VideoTier }
  /** Family A: output seconds at a mode tier. */
  | { kind: 'video-mode'; outputSeconds: number; tier: ModeTier };

export interface Charge {
  amount: number;
  /** JSON-able quantities and unit prices actually applied (kept in the ledger entry). */
  quantities: Record<string, unknown>;
  unitPrices: Record<string, unknown>;
}

export interface SyncChargeInput {
  requestId: string;
  tokenId: string;
  /** Public model name as shown to the client (the ledger shows this). */
  model: string;
  /** Catalogue entry id whose price applies (snapshot → base). */
  billingModel: string;
  usage: Usage;
  upstreamRequestId?: string | null;
}

export interface TaskRef {
  taskId: string;
  tokenId: string;
  model: string;
  billingModel: string;
  requestId?: string | null;
  upstreamRequestId?: string | null;
}

export interface Meter {
  /** Refuse a request when the token's quota is already exhausted (insufficient_quota). */
  assertQuota(tokenId: string): Promise<void>;
  /** Price usage without writing anything. */
  price(billingModel: string, usage: Usage): Charge;
  /** One ledger entry keyed by the request id; a repeated key is a no-op. Returns the amount charged. */
  chargeSync(input: SyncChargeInput): Promise<number>;
  /** Place a hold for a task's estimated cost; refuses (insufficient_quota) if it would exceed the quota. */
  hold(task: TaskRef, estimate: Usage): Promise<number>;
  /** Settle a task at terminal success: exactly one charge (key `${taskId}:success`), hold closed. */
  settle(task: TaskRef, reported: Usage): Promise<number>;
  /** Release a task's hold at failure/cancel; nothing is charged. Idempotent. */
  release(task: TaskRef): Promise<void>;
  /** Flush queued writes (graceful shutdown, tests). */
  flush(): Promise<void>;
}
