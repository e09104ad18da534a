// The request and token buckets in Redis, shared by every instance: one Lua script refills and takes both
// atomically on Redis's clock (all or nothing), or answers how long until they may have room. While Redis cannot
// answer, this instance's own buckets stand in.
import type { Redis } from 'ioredis';
import { paceOf } from './bucket.ts';
import type { CapacityCounters, LocalCounters, Pace } from './counters.ts';

// KEYS: the request bucket, the token bucket. ARGV per bucket: per-ms rate, burst, amount (rate 0: no such bucket);
// ARGV[7]: 1 = take, 0 = adjust the token bucket by ARGV[6] (a signed amount given back).
const SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lv, wait = {}, 0
for i = 1, 2 do
  local rate, burst, n = tonumber(ARGV[3 * i - 2]), tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i])
  if rate > 0 then
    local s = redis.call('HMGET', KEYS[i], 'l', 'a')
    local level, at = tonumber(s[1] or burst), tonumber(s[2] or now)
    if now > at then level = math.min(burst, level + (now - at) * rate) end
    lv[i] = level
    if ARGV[7] == '1' then
      local need = math.min(n, burst)
      if level < need then wait = math.max(wait, math.ceil((need - level) / rate)) end
    end
  end
end
if wait > 0 then return wait end
for i = 1, 2 do
  local rate, burst, n = tonumber(ARGV[3 * i - 2]), tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i])
  if rate > 0 and (ARGV[7] == '1' or i == 2) then
    local level = lv[i] - n
    if ARGV[7] ~= '1' then level = math.min(burst, lv[i] + n) end
    redis.call('HSET', KEYS[i], 'l', tostring(level), 'a', tostring(now))
    redis.call('PEXPIRE', KEYS[i], math.ceil(burst / rate) + 60000)
  end
end
return 0`;

type Script = (...a: unknown[]) => Promise<number>;

export class RedisCapacityCounters implements CapacityCounters {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly fallback: LocalCounters,
    private readonly onError: (e: unknown) => void,
  ) {
    redis.defineCommand('tollwayCapacity', { lua: SCRIPT });
  }

  take(key: string, rpm: Pace | null, tpm: Pace | null, tokens: number): Promise<number> {
    return this.run(key, rpm, tpm, 1, tokens, true).catch((e: unknown) => {
      this.onError(e);
      return this.fallback.take(key, rpm, tpm, tokens);
    });
  }

  adjustTokens(key: string, tpm: Pace, n: number): void {
    this.run(key, null, tpm, 0, n, false).catch(this.onError);
  }

  private run(key: string, rpm: Pace | null, tpm: Pace | null, reqs: number, tokens: number, take: boolean): Promise<number> {
    const call = (this.redis as unknown as Record<string, Script>).tollwayCapacity!;
    const r = rpm ? paceOf(rpm.perMinute, 'requests') : null;
    const t = tpm ? paceOf(tpm.perMinute, 'tokens') : null;
    const k = `${this.prefix}cap:${key}`;
    return call.call(this.redis, 2, `${k}:req`, `${k}:tok`, r ? r.perMs : 0, r ? r.burst : 0, reqs, t ? t.perMs : 0, t ? t.burst : 0, tokens, take ? '1' : '0');
  }
}
