// The limits of the composition root: per-token rate-limit counters, the wrong-key address table and the upstream
// query rate, shared through Redis when configured, else this process's own.
import type { Config } from './config/config.ts';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import {
  MemoryAddressWindows,
  MemoryCounters,
  RateLimiter,
  RedisAddressWindows,
  RedisCounters,
  WINDOW_MS,
} from './limits/rate-limiter.ts';
import { MemoryQueryRate, RedisQueryRate } from './limits/query-rate.ts';

/** Rate-limit counters and the upstream query rate: shared through Redis when configured, else this process's. */
export function composeLimits(
  config: Config,
  logger: Logger,
  redis: { limits: Redis; queryRate: Redis } | null,
  queryRateMemory: SharedArrayBuffer,
): { limiter: RateLimiter; queryRate: MemoryQueryRate | RedisQueryRate } {
  const { addressTableSize: size, redisPrefix: prefix } = config.limits;
  const counters = redis ? new RedisCounters(redis.limits, prefix) : new MemoryCounters();
  const addresses = redis ? new RedisAddressWindows(redis.limits, prefix, size) : new MemoryAddressWindows(size);
  const limiter = new RateLimiter(
    counters,
    WINDOW_MS,
    (e) => logger.warn({ err: String(e) }, 'rate-limit counters unavailable; request admitted uncounted'),
    addresses,
  );
  const rateOpts = { qps: config.tasks.upstreamQueryQps };
  const local = new MemoryQueryRate(rateOpts, queryRateMemory);
  // With Redis every instance shares each upstream account's query rate; while Redis is away, this process's stands in.
  const queryRate = redis
    ? new RedisQueryRate(redis.queryRate, rateOpts, local, (e) =>
        logger.warn({ err: String(e) }, 'query rate in Redis unavailable; this instance keeps its own'),
      )
    : local;
  return { limiter, queryRate };
}
