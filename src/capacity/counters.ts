// Where an account x model's request and token buckets live: this process (each instance paces its own share), or
// Redis (every instance draws on the same buckets; redis-counters.ts).
import { paceOf, TokenBucket } from './bucket.ts';

/** One bucket's rate: the limit per minute, of requests or of tokens. */
export interface Pace {
  perMinute: number;
  kind: 'requests' | 'tokens';
}

export interface CapacityCounters {
  /**
   * Take one request (from `rpm`) and `tokens` (from `tpm`) if both have room, all or nothing. The answer is 0 when
   * taken, else the milliseconds until they might: a number from this process, a promise from Redis.
   */
  take(key: string, rpm: Pace | null, tpm: Pace | null, tokens: number): number | Promise<number>;
  /** Give back (n > 0) or take more (n < 0) tokens after the fact: the estimate corrected by the usage. */
  adjustTokens(key: string, tpm: Pace, n: number): void;
  /** No call of this instance waits for the buckets any more (shared buckets: its turn goes to the others). */
  withdraw?(key: string): void;
}

interface Buckets {
  req: TokenBucket | null;
  reqPace: Pace | null;
  tok: TokenBucket | null;
  tokPace: Pace | null;
}

/** The buckets of this process. */
export class LocalCounters implements CapacityCounters {
  private readonly buckets = new Map<string, Buckets>();
  /** New buckets start empty (drain() was called), else full. */
  private drained = false;

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Empty every bucket: the stand-in for Redis's starts here, as what Redis's buckets held may just have been taken
   * through them by this or another instance.
   */
  drain(): void {
    const now = this.now();
    for (const b of this.buckets.values()) {
      b.req?.drain(now);
      b.tok?.drain(now);
    }
    this.drained = true;
  }

  take(key: string, rpm: Pace | null, tpm: Pace | null, tokens: number): number {
    const now = this.now();
    const b = this.of(key, rpm, tpm, now);
    const wait = Math.max(b.req ? b.req.waitFor(1, now) : 0, b.tok && tokens > 0 ? b.tok.waitFor(tokens, now) : 0);
    if (wait > 0) return wait;
    b.req?.take(1);
    if (tokens > 0) b.tok?.take(tokens);
    return 0;
  }

  adjustTokens(key: string, _tpm: Pace, n: number): void {
    this.buckets.get(key)?.tok?.adjust(n, this.now());
  }

  private of(key: string, rpm: Pace | null, tpm: Pace | null, now: number): Buckets {
    let b = this.buckets.get(key);
    if (b === undefined) {
      b = { req: null, reqPace: null, tok: null, tokPace: null };
      this.buckets.set(key, b);
    }
    if (b.reqPace !== rpm) {
      b.req = follow(b.req, rpm, now, this.drained);
      b.reqPace = rpm;
    }
    if (b.tokPace !== tpm) {
      b.tok = follow(b.tok, tpm, now, this.drained);
      b.tokPace = tpm;
    }
    return b;
  }
}

function follow(bucket: TokenBucket | null, pace: Pace | null, now: number, empty: boolean): TokenBucket | null {
  if (pace === null) return null;
  const { perMs, burst } = paceOf(pace.perMinute, pace.kind);
  if (bucket === null) {
    const b = new TokenBucket(perMs, burst, now);
    if (empty) b.drain(now);
    return b;
  }
  bucket.reset(perMs, burst);
  return bucket;
}
