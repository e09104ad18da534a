// Per-token requests-per-minute and concurrency limits. In-process by default; with REDIS_URL the
// counters live in Redis so every gateway instance shares them. Tokens without limits cost nothing.
import type { Redis } from 'ioredis';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Principal } from '../auth/principal.ts';

export interface LimitCounters {
  /** Increment the fixed-window counter for key and return the new value. */
  incrWindow(key: string, windowMs: number): Promise<number>;
  incrConcurrent(key: string): Promise<number>;
  decrConcurrent(key: string): Promise<void>;
  close(): Promise<void>;
}

export class MemoryCounters implements LimitCounters {
  private readonly windows = new Map<string, { n: number; until: number }>();
  private readonly concurrent = new Map<string, number>();

  async incrWindow(key: string, windowMs: number): Promise<number> {
    const now = Date.now();
    const w = this.windows.get(key);
    if (!w || w.until <= now) {
      if (this.windows.size > 100_000) this.windows.clear();
      this.windows.set(key, { n: 1, until: now + windowMs });
      return 1;
    }
    w.n += 1;
    return w.n;
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
}

export class RedisCounters implements LimitCounters {
  constructor(private readonly redis: Redis, private readonly prefix = 'tollway:') {}

  async incrWindow(key: string, windowMs: number): Promise<number> {
    const k = `${this.prefix}rpm:${key}:${Math.floor(Date.now() / windowMs)}`;
    const [[, n]] = (await this.redis.multi().incr(k).pexpire(k, windowMs * 2).exec()) as [[unknown, number]];
    return n;
  }
  async incrConcurrent(key: string): Promise<number> {
    const k = `${this.prefix}conc:${key}`;
    // The TTL bounds the damage of an instance that died holding slots.
    const [[, n]] = (await this.redis.multi().incr(k).pexpire(k, 10 * 60_000).exec()) as [[unknown, number]];
    return n;
  }
  async decrConcurrent(key: string): Promise<void> {
    await this.redis.decr(`${this.prefix}conc:${key}`);
  }
  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

export class RateLimiter {
  constructor(private readonly counters: LimitCounters) {}

  /** Admit a request or throw 429 with Retry-After; returns the release function for concurrency. */
  async admit(p: Principal): Promise<(() => void) | null> {
    if (p.rpmLimit !== null) {
      const n = await this.counters.incrWindow(p.tokenId, 60_000);
      if (n > p.rpmLimit) {
        const retry = String(60 - Math.floor((Date.now() % 60_000) / 1000));
        throw new GatewayError('rate_limited', `Rate limit of ${p.rpmLimit} requests per minute exceeded`, { headers: { 'retry-after': retry } });
      }
    }
    if (p.concurrencyLimit === null) return null;
    const n = await this.counters.incrConcurrent(p.tokenId);
    if (n > p.concurrencyLimit) {
      await this.counters.decrConcurrent(p.tokenId);
      throw new GatewayError('concurrency_limited', `Concurrency limit of ${p.concurrencyLimit} in-flight requests exceeded`, { headers: { 'retry-after': '1' } });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      void this.counters.decrConcurrent(p.tokenId);
    };
  }

  close(): Promise<void> {
    return this.counters.close();
  }
}
