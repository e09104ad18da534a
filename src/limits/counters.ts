// The counters behind per-token limits: fixed windows (requests, tokens) and in-flight slots. In-process by
// default; with REDIS_URL they live in Redis so every gateway instance shares them.
//
// A window opens with the first count after the previous one closed and lasts `windowMs`; the answer says how long
// until it closes, so a refusal's Retry-After is exactly the time until the refusing window resets.
import type { Redis } from 'ioredis';
import { RedisSlots } from './redis-slots.ts';

/** A window's count and the milliseconds until it closes (0 when none is open). */
export interface WindowCount {
  n: number;
  resetMs: number;
}

export interface LimitCounters {
  /** Add `by` to the window of key (opening one of windowMs when none is open) and return the new count. */
  add(key: string, by: number, windowMs: number): Promise<WindowCount>;
  /** The window's count without changing it: n 0 and resetMs 0 when none is open. */
  read(key: string): Promise<WindowCount>;
  incrConcurrent(key: string): Promise<number>;
  decrConcurrent(key: string): Promise<void>;
  close(): Promise<void>;
}

const SWEEP_AT = 10_000;
const CLOSED: WindowCount = Object.freeze({ n: 0, resetMs: 0 });

export class MemoryCounters implements LimitCounters {
  private readonly windows = new Map<string, { n: number; until: number }>();
  private readonly concurrent = new Map<string, number>();
  private sweepAt = SWEEP_AT;

  /** `now` is injectable so tests can move time instead of waiting a minute. */
  constructor(private readonly now: () => number = Date.now) {}

  async add(key: string, by: number, windowMs: number): Promise<WindowCount> {
    const now = this.now();
    let w = this.windows.get(key);
    if (!w || w.until <= now) {
      // Closed windows of tokens gone quiet are dropped in bulk rather than tracked one by one. Only tokens open
      // windows here (address windows live in address-windows.ts), so the table is bounded by the tokens with limits.
      if (this.windows.size > this.sweepAt) this.sweep(now);
      w = { n: 0, until: now + windowMs };
      this.windows.set(key, w);
    }
    w.n += by;
    return { n: w.n, resetMs: w.until - now };
  }

  async read(key: string): Promise<WindowCount> {
    const now = this.now();
    const w = this.windows.get(key);
    return !w || w.until <= now ? CLOSED : { n: w.n, resetMs: w.until - now };
  }

  async incrConcurrent(key: string): Promise<number> {
    const n = (this.concurrent.get(key) ?? 0) + 1;
    this.concurrent.set(key, n);
    return n;
  }

  async decrConcurrent(key: string): Promise<void> {
    const n = (this.concurrent.get(key) ?? 1) - 1;
    if (n <= 0) this.concurrent.delete(key);
    else this.concurrent.set(key, n);
  }

  async close(): Promise<void> {}

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (w.until <= now) this.windows.delete(k);
    // Never cleared while open: the next sweep waits until the table has doubled.
    this.sweepAt = Math.max(SWEEP_AT, this.windows.size * 2);
  }
}

export class RedisCounters implements LimitCounters {
  private readonly slots: RedisSlots;

  /**
   * `slotLeaseMs`: how long the slots of an instance that stopped renewing (a dead one) still count (redis-slots.ts).
   */
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'tollway:',
    slotLeaseMs?: number,
  ) {
    this.slots = new RedisSlots(redis, prefix, slotLeaseMs);
  }

  async add(key: string, by: number, windowMs: number): Promise<WindowCount> {
    const k = `${this.prefix}win:${key}`;
    // One transaction: open the window with its expiry only if none is open (SET NX PX), count, and read the time
    // left. The expiry is Redis's, so every instance sees the same window whatever its own clock says.
    const res = (await this.redis.multi().set(k, 0, 'PX', windowMs, 'NX').incrby(k, by).pttl(k).exec()) as Array<
      [Error | null, unknown]
    >;
    return { n: Number(res[1]![1]), resetMs: ttl(res[2]![1], windowMs) };
  }

  async read(key: string): Promise<WindowCount> {
    const k = `${this.prefix}win:${key}`;
    const res = (await this.redis.multi().get(k).pttl(k).exec()) as Array<[Error | null, unknown]>;
    const v = res[0]![1];
    if (v === null) return CLOSED;
    return { n: Number(v), resetMs: ttl(res[1]![1], 0) };
  }

  incrConcurrent(key: string): Promise<number> {
    return this.slots.take(key);
  }

  decrConcurrent(key: string): Promise<void> {
    return this.slots.give(key);
  }

  async close(): Promise<void> {
    await this.slots.close();
    this.redis.disconnect();
  }
}

/** PTTL's answer: negative means no expiry (-1) or no key (-2), which a window written by add() never has. */
function ttl(v: unknown, fallback: number): number {
  const ms = Number(v);
  return ms >= 0 ? ms : fallback;
}
