// Who may send now, for the outboxes (client task callbacks, alert webhooks): a bounded number of deliveries in
// flight, of which one receiver host holds at most a share, and a breaker per host: after one of its attempts timed
// out, the host gets one attempt at a time with a short timeout, until a while passes without another timeout. So a
// receiver that accepts connections and never answers holds a few slots for a short time, never the whole outbox.

export interface DeliveryPoolOptions {
  /** Deliveries in flight at once. */
  concurrency: number;
  /** Of those, at most this many to one receiver host. */
  perHost: number;
  /** A timed-out host's attempts wait at most this long for an answer. */
  slowTimeoutMs: number;
  /** How long a host stays timed-out after its last timeout. */
  breakerMs: number;
}

export const DEFAULT_DELIVERY_POOL: DeliveryPoolOptions = {
  concurrency: 32,
  perHost: 4,
  slowTimeoutMs: 2000,
  breakerMs: 60_000,
};

/** The receiver host a delivery goes to (its URL's host and port); the URL itself when it does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return url;
  }
}

/** Timed-out hosts kept at most (the oldest is forgotten first: it then gets the full timeout once more). */
const MAX_SLOW_HOSTS = 10_000;

export class DeliveryPool {
  private inflight = 0;
  private readonly byHost = new Map<string, number>();
  private readonly slowUntil = new Map<string, number>();

  constructor(
    private readonly o: DeliveryPoolOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Deliveries that may start now (whatever their hosts). */
  get free(): number {
    return this.o.concurrency - this.inflight;
  }

  /**
   * A slot for a delivery to `host`, and the timeout it gets (`timeoutMs`, or the short one while the host is
   * timed-out); null when there is no slot or the host has its share (the delivery waits for a later round).
   */
  take(host: string, timeoutMs: number): number | null {
    const slow = this.isSlow(host);
    const n = this.byHost.get(host) ?? 0;
    if (this.inflight >= this.o.concurrency || n >= (slow ? 1 : this.o.perHost)) return null;
    this.inflight++;
    this.byHost.set(host, n + 1);
    return slow ? Math.min(timeoutMs, this.o.slowTimeoutMs) : timeoutMs;
  }

  /** The delivery to `host` ended; `timedOut`: the host did not answer in time (its breaker opens). */
  done(host: string, timedOut: boolean): void {
    this.inflight--;
    const n = (this.byHost.get(host) ?? 1) - 1;
    if (n > 0) this.byHost.set(host, n);
    else this.byHost.delete(host);
    if (!timedOut) return;
    this.slowUntil.delete(host);
    if (this.slowUntil.size >= MAX_SLOW_HOSTS) this.slowUntil.delete(this.slowUntil.keys().next().value as string);
    this.slowUntil.set(host, this.now() + this.o.breakerMs);
  }

  /** Whether the host timed out within the breaker's time. */
  isSlow(host: string): boolean {
    const until = this.slowUntil.get(host);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.slowUntil.delete(host);
    return false;
  }
}
