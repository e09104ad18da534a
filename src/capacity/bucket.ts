// A token bucket: what an upstream limit per minute becomes when it is paced per second. It refills at
// `perMs` and holds at most `burst`, so the gateway never sends a minute's worth at once. A take larger than the
// burst goes when the bucket is full and leaves it in debt (a call's token estimate may exceed one second's worth).

/** How a limit per minute is paced: the burst is one second's worth (at least 1), the refill what is left of the minute. */
export function paceOf(perMinute: number, burstCap: number | null = null): { perMs: number; burst: number } {
  let burst = Math.max(1, Math.floor(perMinute / 60));
  if (burstCap !== null) burst = Math.min(burst, burstCap);
  // Any 60 s then admit at most burst + perMs * 60 000 = perMinute.
  return { perMs: Math.max(perMinute - burst, perMinute / 60) / 60_000, burst };
}

export class TokenBucket {
  private level: number;
  private at: number;

  constructor(
    private perMs: number,
    private burst: number,
    now: number,
  ) {
    this.level = burst;
    this.at = now;
  }

  /** A new rate and burst (the limit changed): the level is kept, cut to the new burst. */
  reset(perMs: number, burst: number): void {
    this.perMs = perMs;
    this.burst = burst;
    if (this.level > burst) this.level = burst;
  }

  private refill(now: number): void {
    if (now > this.at) {
      this.level = Math.min(this.burst, this.level + (now - this.at) * this.perMs);
      this.at = now;
    }
  }

  /** Milliseconds until `n` could be taken (0: now). */
  waitFor(n: number, now: number): number {
    this.refill(now);
    const need = Math.min(n, this.burst);
    return this.level >= need ? 0 : Math.ceil((need - this.level) / this.perMs);
  }

  /** Take `n` (call waitFor first: a take never checks). */
  take(n: number): void {
    this.level -= n;
  }

  /** Give back (n > 0) or take more (n < 0) after the fact: a token estimate corrected by the reported usage. */
  adjust(n: number, now: number): void {
    this.refill(now);
    this.level = Math.min(this.burst, this.level + n);
  }
}
