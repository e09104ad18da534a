// The limits of the composition root: per-token rate-limit counters, the wrong-key address table and the upstream
// query budget, shared through Redis when configured, else this process's own.
import type { Config } from './config/config.ts';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import { MemoryAddressWindows, MemoryCounters, RateLimiter, RedisAddressWindows, RedisCounters, WINDOW_MS } from './limits/rate-limiter.ts';
import { MemoryQueryBudget, RedisQueryBudget } from './limits/query-budget.ts';

/** Rate-limit counters and the upstream query budget: shared through Redis when configured, else this process's. */
export function composeLimits(
  config: Config,
  logger: Logger,
  redis: { limits: Redis; budget: Redis } | null,
  queryBudgetMemory: SharedArrayBuffer,
): { limiter: RateLimiter; budget: MemoryQueryBudget | RedisQueryBudget } {
  const { addressTableSize: size, redisPrefix: prefix } = config.limits;
  const counters = redis ? new RedisCounters(redis.limits, prefix) : new MemoryCounters();
  const addresses = redis ? new RedisAddressWindows(redis.limits, prefix, size) : new MemoryAddressWindows(size);
  const limiter = new RateLimiter(
    counters,
    WINDOW_MS,
    (e) => logger.warn({ err: String(e) }, 'rate-limit counters unavailable; request admitted uncounted'),
    addresses,
  );
  const budgetOpts = { qps: config.tasks.dashscopeQueryQps };
  const local = new MemoryQueryBudget(budgetOpts, queryBudgetMemory);
  // With Redis every instance shares each upstream account's query budget; while Redis is away, this process's stands in.
  const budget = redis
    ? new RedisQueryBudget(redis.budget, budgetOpts, local, (e) =>
        logger.warn({ err: String(e) }, 'query budget in Redis unavailable; this instance keeps its own'),
      )
    : local;
  return { limiter, budget };
}
