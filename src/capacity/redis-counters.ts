// The request and token buckets in Redis, shared by every instance: one Lua script refills and takes both
// atomically on Redis's clock (all or nothing), or answers how long until they may have room. While Redis cannot
// answer, this instance's own buckets stand in: at once while the client is not connected (a call never waits on
// ioredis's reconnection), and for a take that failed.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { paceOf } from './bucket.ts';
import type { CapacityCounters, LocalCounters, Pace } from './counters.ts';

// KEYS: the request bucket, the token bucket, the instances waiting for them (when each started: whose turn), when
// each last asked. ARGV per bucket: per-ms rate, burst, amount (rate 0: no such bucket); ARGV[7]: 1 = take,
// 0 = adjust the token bucket by ARGV[6] (a signed amount given back), 2 = this instance waits no more; ARGV[8]:
// the instance. Instances with calls waiting take turns, the one waiting longest first: a take that finds room while
// another instance waits longer is told to come back after one interval. A waiter that stopped asking (its instance
// died) loses its turn after an interval and a second.
const SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local mode, me = ARGV[7], ARGV[8]
if mode == '2' then
  redis.call('ZREM', KEYS[3], me)
  redis.call('ZREM', KEYS[4], me)
  return 0
end
local lv, wait, turn = {}, 0, 0
for i = 1, 2 do
  local rate, burst, n = tonumber(ARGV[3 * i - 2]), tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i])
  if rate > 0 then
    local s = redis.call('HMGET', KEYS[i], 'l', 'a')
    local level, at = tonumber(s[1] or burst), tonumber(s[2] or now)
    if now > at then level = math.min(burst, level + (now - at) * rate) end
    lv[i] = level
    if mode == '1' then
      local need = math.min(n, burst)
      if level < need then wait = math.max(wait, math.ceil((need - level) / rate)) end
      turn = math.max(turn, math.ceil(math.max(1, need) / rate))
    end
  end
end
if mode == '1' then
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - turn - 1000)) do
    redis.call('ZREM', KEYS[3], m)
    redis.call('ZREM', KEYS[4], m)
  end
  local first = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
  if wait == 0 and first and first ~= me then wait = turn end
  if wait > 0 then
    redis.call('ZADD', KEYS[3], 'NX', now, me)
    redis.call('ZADD', KEYS[4], now, me)
    redis.call('PEXPIRE', KEYS[3], turn + 60000)
    redis.call('PEXPIRE', KEYS[4], turn + 60000)
    return wait
  end
  redis.call('ZREM', KEYS[3], me)
  redis.call('ZREM', KEYS[4], me)
end
for i = 1, 2 do
  local rate, burst, n = tonumber(ARGV[3 * i - 2]), tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i])
  if rate > 0 and (mode == '1' or i == 2) then
    local level = lv[i] - n
    if mode ~= '1' then level = math.min(burst, lv[i] + n) end
    redis.call('HSET', KEYS[i], 'l', tostring(level), 'a', tostring(now))
    redis.call('PEXPIRE', KEYS[i], math.ceil(burst / rate) + 60000)
  end
end
return 0`;

type Script = (...a: unknown[]) => Promise<number>;

export class RedisCapacityCounters implements CapacityCounters {
  /** This instance's buckets stand in (Redis went away); they are emptied when that starts. */
  private alone = false;
  /** This instance among those waiting for a bucket. */
  private readonly id = randomUUID();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly fallback: LocalCounters,
    private readonly onError: (e: unknown) => void,
  ) {
    redis.defineCommand('tollwayCapacity', { lua: SCRIPT });
  }

  take(key: string, rpm: Pace | null, tpm: Pace | null, tokens: number): number | Promise<number> {
    if (this.redis.status !== 'ready') return this.local().take(key, rpm, tpm, tokens);
    return this.run(key, rpm, tpm, 1, tokens, '1').then(
      (w) => {
        this.alone = false;
        return w;
      },
      (e: unknown) => {
        this.onError(e);
        return this.local().take(key, rpm, tpm, tokens);
      },
    );
  }

  /** The stand-in, emptied when it takes over: Redis's buckets may just have been drawn on (by any instance). */
  private local(): LocalCounters {
    if (!this.alone) {
      this.alone = true;
      this.fallback.drain();
    }
    return this.fallback;
  }

  adjustTokens(key: string, tpm: Pace, n: number): void {
    if (this.redis.status !== 'ready') return this.local().adjustTokens(key, tpm, n);
    this.run(key, null, tpm, 0, n, '0').catch(this.onError);
  }

  withdraw(key: string): void {
    if (this.redis.status === 'ready') this.run(key, null, null, 0, 0, '2').catch(this.onError);
  }

  private run(
    key: string,
    rpm: Pace | null,
    tpm: Pace | null,
    reqs: number,
    tokens: number,
    mode: '0' | '1' | '2',
  ): Promise<number> {
    const call = (this.redis as unknown as Record<string, Script>).tollwayCapacity!;
    const r = rpm ? paceOf(rpm.perMinute, 'requests') : null;
    const t = tpm ? paceOf(tpm.perMinute, 'tokens') : null;
    const k = `${this.prefix}cap:${key}`;
    const [rr, rb, tr, tb] = [r ? r.perMs : 0, r ? r.burst : 0, t ? t.perMs : 0, t ? t.burst : 0];
    return call.call(
      this.redis,
      4,
      `${k}:req`,
      `${k}:tok`,
      `${k}:waiting`,
      `${k}:asked`,
      rr,
      rb,
      reqs,
      tr,
      tb,
      tokens,
      mode,
      this.id,
    );
  }
}
