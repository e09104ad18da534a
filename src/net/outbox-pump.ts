// Delivering an outbox without waiting for its slowest row: each round claims as many due rows as the delivery pool
// has free slots and starts them; a delivery that ends frees its slot and asks for another round at once (`onFreed`),
// so a new claim follows as soon as a slot frees. A row whose receiver host already has its share is put back for a
// moment (its attempt not counted), and the rows behind it go on.
import { type DeliveryPool, hostOf } from './delivery-pool.ts';

/** A claimed row made ready to send. */
export interface Prepared {
  /** Where it goes; null: nothing is sent (the row is settled without a delivery). */
  url: string | null;
  /** Sends it with this timeout and records the outcome; `timedOut`: the receiver did not answer in time. */
  send(timeoutMs: number): Promise<{ timedOut: boolean }>;
  /** Puts it back, due at `until`, its attempt not counted. */
  defer(until: number): Promise<void>;
}

export interface PumpSource {
  /** Claims up to `max` due rows (store/repos/outbox-claim.ts). */
  claim(max: number, now: number): Promise<Prepared[]>;
}

/** How long a row whose host has its share waits before it is claimed again. */
const DEFER_MS = 1000;
/** Rows put back in one round at most: a host with a large backlog costs a bounded amount of work per round. */
const MAX_DEFERRED_PER_ROUND = 500;

export class OutboxPump {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly source: PumpSource,
    private readonly pool: DeliveryPool,
    private readonly timeoutMs: number,
    private readonly onFreed: () => void,
    private readonly onError: (e: unknown) => void,
  ) {}

  /** Claims and starts what the pool has room for; the started deliveries (not awaited here). */
  async round(now = Date.now()): Promise<Array<Promise<void>>> {
    const started: Array<Promise<void>> = [];
    for (let deferred = 0; this.pool.free > 0 && deferred < MAX_DEFERRED_PER_ROUND; ) {
      const want = this.pool.free;
      const claimed = await this.source.claim(want, now);
      for (const c of claimed) {
        const host = c.url === null ? null : hostOf(c.url);
        const timeout = host === null ? this.timeoutMs : this.pool.take(host, this.timeoutMs);
        if (timeout === null) {
          deferred++;
          await c.defer(now + DEFER_MS);
          continue;
        }
        started.push(this.start(c, host, timeout));
      }
      if (claimed.length < want) break;
    }
    return started;
  }

  /** Waits for every delivery in flight (stopping). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private start(c: Prepared, host: string | null, timeoutMs: number): Promise<void> {
    const p: Promise<void> = c
      .send(timeoutMs)
      .then(
        (r) => {
          if (host !== null) this.pool.done(host, r.timedOut);
        },
        (e: unknown) => {
          if (host !== null) this.pool.done(host, false);
          this.onError(e);
        },
      )
      .finally(() => {
        this.running.delete(p);
        this.onFreed();
      });
    this.running.add(p);
    return p;
  }
}
