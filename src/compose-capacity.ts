// Upstream capacity (src/capacity): the gates of every upstream account x model, their buckets shared through
// Redis when configured (every instance draws on the same ones), else this process's.
import type { Redis } from 'ioredis';
import { Capacity, type CatalogueEntries } from './capacity/capacity.ts';
import { LocalCounters } from './capacity/counters.ts';
import type { GateEvents } from './capacity/gate.ts';
import { RedisCapacityCounters } from './capacity/redis-counters.ts';
import type { Config } from './config/config.ts';
import type { ChannelRegistry } from './routing/channel-registry.ts';

export function composeCapacity(
  config: Config,
  channels: ChannelRegistry,
  catalogue: CatalogueEntries,
  redis: Redis | null,
  events: GateEvents,
  onRedisError: (e: unknown) => void,
): Capacity {
  const local = new LocalCounters();
  const counters = redis ? new RedisCapacityCounters(redis, config.limits.redisPrefix, local, onRedisError) : local;
  return new Capacity(
    channels,
    { counters, queueWaitMs: config.capacity.queueWaitMs, now: Date.now, events },
    catalogue,
    config.capacity.learn,
  );
}
