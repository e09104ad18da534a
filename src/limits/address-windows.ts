// Windows counted per client address before any credential is proven (wrong admin keys). Anyone can open one from
// any address, so they live apart from token windows (which no unauthenticated request can touch), in a table of
// bounded size. When it is full, a new address takes the place of the oldest window that has not locked its address;
// a locked address stays locked until its window ends. A table full of locks has no room: the caller then fails
// closed (the address is treated as locked until the oldest lock ends).
import type { Redis } from 'ioredis';
import type { WindowCount } from './counters.ts';

/** A window's count; `full`: the address has no window and the table has no room for one. */
export interface AddressCount extends WindowCount {
  full: boolean;
}

export interface AddressWindows {
  /**
   * Count one event for the address (a window of windowMs opens with the first); at `lockAt` the window is kept to its
   * end.
   */
  add(key: string, windowMs: number, lockAt: number): Promise<AddressCount>;
  read(key: string): Promise<AddressCount>;
}

/** The default number of addresses tracked at once (TOLLWAY_ADDRESS_TABLE_SIZE). */
export const ADDRESS_TABLE_SIZE = 100_000;

interface Window {
  n: number;
  until: number;
}

export class MemoryAddressWindows implements AddressWindows {
  // Two tables in opening order, so eviction takes the head of one: O(1) whatever the number of locks.
  private readonly counting = new Map<string, Window>();
  private readonly locked = new Map<string, Window>();

  constructor(
    private readonly size = ADDRESS_TABLE_SIZE,
    private readonly now: () => number = Date.now,
  ) {}

  async add(key: string, windowMs: number, lockAt: number): Promise<AddressCount> {
    const now = this.now();
    let w = this.live(key, now);
    if (!w) {
      const full = this.makeRoom(now);
      if (full) return full;
      w = { n: 0, until: now + windowMs };
      this.counting.set(key, w);
    }
    w.n += 1;
    if (w.n >= lockAt && this.counting.delete(key)) this.locked.set(key, w);
    return { n: w.n, resetMs: w.until - now, full: false };
  }

  async read(key: string): Promise<AddressCount> {
    const now = this.now();
    const w = this.live(key, now);
    if (w) return { n: w.n, resetMs: w.until - now, full: false };
    this.dropEnded(now);
    if (this.counting.size + this.locked.size < this.size || this.counting.size > 0)
      return { n: 0, resetMs: 0, full: false };
    return this.fullAnswer(now);
  }

  private live(key: string, now: number): Window | undefined {
    const w = this.counting.get(key) ?? this.locked.get(key);
    if (w && w.until > now) return w;
    if (w && !this.counting.delete(key)) this.locked.delete(key);
    return undefined;
  }

  /** Free one place when the table is full (null), or say it is full of locks. */
  private makeRoom(now: number): AddressCount | null {
    if (this.counting.size + this.locked.size < this.size) return null;
    this.dropEnded(now);
    if (this.counting.size + this.locked.size < this.size) return null;
    const oldest = this.counting.keys().next();
    if (oldest.done) return this.fullAnswer(now);
    this.counting.delete(oldest.value);
    return null;
  }

  /** Windows of equal length end in opening order: ended ones sit at the heads. */
  private dropEnded(now: number): void {
    for (const table of [this.counting, this.locked]) {
      for (const [k, w] of table) {
        if (w.until > now) break;
        table.delete(k);
      }
    }
  }

  private fullAnswer(now: number): AddressCount {
    const first = this.locked.values().next();
    return { n: 0, resetMs: first.done ? 1000 : Math.max(1, first.value.until - now), full: true };
  }
}

// The Redis table: each window a key with its expiry (as before), plus two sorted sets of window keys scored by when
// they end, so one script finds ended and oldest windows without scanning.
const ADD = `
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local win, counting, locked = KEYS[1], KEYS[2], KEYS[3]
local windowMs, lockAt, size = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if redis.call('EXISTS', win) == 0 then
  redis.call('ZREMRANGEBYSCORE', counting, '-inf', now)
  redis.call('ZREMRANGEBYSCORE', locked, '-inf', now)
  if redis.call('ZCARD', counting) + redis.call('ZCARD', locked) >= size then
    local oldest = redis.call('ZRANGE', counting, 0, 0)
    if #oldest == 0 then
      local first = redis.call('ZRANGE', locked, 0, 0, 'WITHSCORES')
      return {-1, tonumber(first[2]) - now}
    end
    redis.call('ZREM', counting, oldest[1])
    redis.call('DEL', oldest[1])
  end
  redis.call('SET', win, 0, 'PX', windowMs)
  redis.call('ZADD', counting, now + windowMs, win)
end
local n = redis.call('INCR', win)
local ttl = redis.call('PTTL', win)
if n >= lockAt and redis.call('ZREM', counting, win) == 1 then redis.call('ZADD', locked, now + ttl, win) end
return {n, ttl}
`;

const READ = `
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local win, counting, locked, size = KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1])
local n = redis.call('GET', win)
if n then return {tonumber(n), redis.call('PTTL', win)} end
redis.call('ZREMRANGEBYSCORE', counting, '-inf', now)
redis.call('ZREMRANGEBYSCORE', locked, '-inf', now)
local c = redis.call('ZCARD', counting)
if c > 0 or c + redis.call('ZCARD', locked) < size then return {0, 0} end
local first = redis.call('ZRANGE', locked, 0, 0, 'WITHSCORES')
return {-1, tonumber(first[2]) - now}
`;

export class RedisAddressWindows implements AddressWindows {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'tollway:',
    private readonly size = ADDRESS_TABLE_SIZE,
  ) {}

  async add(key: string, windowMs: number, lockAt: number): Promise<AddressCount> {
    return answer(await this.redis.eval(ADD, 3, ...this.keys(key), windowMs, lockAt, this.size));
  }

  async read(key: string): Promise<AddressCount> {
    return answer(await this.redis.eval(READ, 3, ...this.keys(key), this.size));
  }

  private keys(key: string): [string, string, string] {
    return [`${this.prefix}win:${key}`, `${this.prefix}addr:counting`, `${this.prefix}addr:locked`];
  }
}

function answer(v: unknown): AddressCount {
  const [n, ms] = (Array.isArray(v) ? v : [0, 0]).map(Number) as [number, number];
  if (n < 0) return { n: 0, resetMs: Math.max(1, ms), full: true };
  return { n, resetMs: Math.max(0, ms), full: false };
}
