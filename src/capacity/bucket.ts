// A token bucket: what an upstream limit per minute becomes when it is paced per second. It refills at
// `perMs` and holds at most `burst`, so the gateway never sends a minute's worth at once. A take larger than the
// burst goes when the bucket is full and leaves it in debt (a call's token estimate may exceed one second's worth).

/** Slack for the time between admission here and arrival upstream: a second's share is spread over a bit more. */
export const JITTER_MS = 250;

/**
 * How a limit per minute is paced. Requests: one at a time (burst 1), spaced so that no second upstream — late
 * arrivals included — sees more than its share (RPM/60), nor any minute more than RPM. Tokens: a burst of one
 * second's share (a call's estimate may be that large), refilled at that share over a second and the slack.
 */
export function paceOf(perMinute: number, kind: 'requests' | 'tokens' = 'requests'): { perMs: number; burst: number } {
  const perSecond = perMinute / 60;
  if (kind === 'tokens') return { perMs: perSecond / (1000 + JITTER_MS), burst: Math.max(1, Math.floor(perSecond)) };
  const interval = perSecond >= 1 ? (1000 + JITTER_MS) / perSecond : 60_000 / perMinute + JITTER_MS;
  return { perMs: 1 / interval, burst: 1 };
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

  /** Nothing left now (a debt is kept): what this instance may send starts from here. */
  drain(now: number): void {
    this.refill(now);
    this.level = Math.min(0, this.level);
  }

  /** Give back (n > 0) or take more (n < 0) after the fact: a token estimate corrected by the reported usage. */
  adjust(n: number, now: number): void {
    this.refill(now);
    this.level = Math.min(this.burst, this.level + n);
  }
}
