// In-flight slots shared through Redis as per-instance leases, so a gateway that dies holding slots (a SIGKILL, a
// lost host) frees them within seconds rather than when a counter's TTL runs out.
//
// Each token has a hash of instance id → slots that instance holds; a sorted set scores each live instance with the
// time (Redis's clock) its lease ends. An instance renews its lease while it holds any slot, and each take counts
// only the entries of instances whose lease is still running, deleting the others. This instance's own counts are
// kept here and written as absolute values, so an entry another instance pruned during a long stall is put back by
// the next renewal instead of drifting.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** How long an instance's slots outlive its last renewal: what a dead instance's slots cost the others. */
export const SLOT_LEASE_MS = 5_000;
/** A hash of a token nobody has taken a slot of for this long is dropped by Redis. */
const HASH_TTL_MS = 10 * 60_000;

// Redis's own clock in ms, so every instance reads the leases alike whatever its clock says.
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS: the token's hash, the lease set. ARGV: this instance, its count, lease ms, hash ttl ms. The live total. */
const TAKE = `${NOW}
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
local f = redis.call('HGETALL', KEYS[1])
local sum = tonumber(ARGV[2])
for i = 1, #f, 2 do
  if f[i] ~= ARGV[1] then
    local s = redis.call('ZSCORE', KEYS[2], f[i])
    if s and tonumber(s) > now then sum = sum + tonumber(f[i + 1]) else redis.call('HDEL', KEYS[1], f[i]) end
  end
end
if tonumber(ARGV[2]) > 0 then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) else redis.call('HDEL', KEYS[1], ARGV[1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return sum`;

/**
 * KEYS: the lease set, then the hashes this instance holds slots in. ARGV: this instance, lease ms, hash ttl ms, the
 * counts.
 */
const RENEW = `${NOW}
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 2, #KEYS do
  if tonumber(ARGV[i + 2]) > 0 then redis.call('HSET', KEYS[i], ARGV[1], ARGV[i + 2]) else redis.call('HDEL', KEYS[i], ARGV[1]) end
  redis.call('PEXPIRE', KEYS[i], ARGV[3])
end
return 0`;

export class RedisSlots {
  private readonly id = randomUUID();
  private readonly held = new Map<string, number>();
  /** Keys whose last give did not reach Redis: the next renewal deletes this instance's entry there. */
  private readonly unwritten = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly leaseMs = SLOT_LEASE_MS,
  ) {}

  /** Take one slot of `key`; the slots now held under it by every live instance, this one included. */
  async take(key: string): Promise<number> {
    const n = (this.held.get(key) ?? 0) + 1;
    this.held.set(key, n);
    this.renewWhileHeld();
    try {
      return Number(await this.write(key, n));
    } catch (e) {
      this.drop(key);
      throw e;
    }
  }

  /** Give back one slot of `key`. */
  async give(key: string): Promise<void> {
    const n = this.drop(key);
    try {
      await this.write(key, n);
    } catch (e) {
      if (n === 0) this.unwritten.add(key);
      this.renewWhileHeld();
      throw e;
    }
  }

  /** Stop renewing and end this instance's lease, so its remaining entries stop counting at once. */
  async close(): Promise<void> {
    this.stopRenewing();
    this.held.clear();
    this.unwritten.clear();
    if (this.redis.status === 'ready') await this.redis.zrem(this.leases(), this.id).catch(() => undefined);
  }

  private drop(key: string): number {
    const n = (this.held.get(key) ?? 1) - 1;
    if (n > 0) this.held.set(key, n);
    else this.held.delete(key);
    if (this.held.size === 0 && this.unwritten.size === 0) this.stopRenewing();
    return n;
  }

  private write(key: string, n: number): Promise<unknown> {
    return this.redis.eval(TAKE, 2, this.hash(key), this.leases(), this.id, n, this.leaseMs, HASH_TTL_MS);
  }

  private renewWhileHeld(): void {
    if (this.timer) return;
    // A third of the lease: two renewals may be late or lost before another instance stops counting these slots.
    this.timer = setInterval(() => void this.renew().catch(() => undefined), Math.max(1, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  private stopRenewing(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async renew(): Promise<void> {
    const cleared = [...this.unwritten].filter((k) => !this.held.has(k));
    const keys = [...this.held.keys(), ...cleared];
    const counts = keys.map((k) => this.held.get(k) ?? 0);
    await this.redis.eval(
      RENEW,
      keys.length + 1,
      this.leases(),
      ...keys.map((k) => this.hash(k)),
      this.id,
      this.leaseMs,
      HASH_TTL_MS,
      ...counts,
    );
    this.unwritten.clear();
    if (this.held.size === 0 && this.unwritten.size === 0) this.stopRenewing();
  }

  private hash(key: string): string {
    return `${this.prefix}slots:${key}`;
  }

  private leases(): string {
    return `${this.prefix}slot-leases`;
  }
}
