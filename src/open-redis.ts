// The Redis connections of an instance (cluster bus, limit counters, the upstream query rate), when Redis is set.
import type { Logger } from 'pino';
import type { RedisClients } from './compose-types.ts';

/**
 * A Redis client whose connection errors reach the log (once per outage, not per reconnect attempt) instead of
 * ioredis's "Unhandled error event" on stderr; it keeps reconnecting on its own.
 */
async function redisClient(
  url: string,
  logger: Logger,
  role: string,
  opts: { maxRetriesPerRequest?: number; enableReadyCheck?: boolean } = {},
): Promise<import('ioredis').Redis> {
  const { Redis } = await import('ioredis');
  const r = new Redis(url, opts);
  let down = false;
  r.on('error', (e: unknown) => {
    if (!down) logger.warn({ err: String(e), role }, 'Redis is not reachable; reconnecting');
    down = true;
  });
  r.on('ready', () => {
    if (down) logger.info({ role }, 'Redis is reachable again');
    down = false;
  });
  return r;
}

/** ioredis is loaded only when Redis is configured (a single instance does not carry it). */
export async function openRedis(url: string | undefined, logger: Logger): Promise<RedisClients | null> {
  if (!url) return null;
  return {
    publish: await redisClient(url, logger, 'cluster-publish', { maxRetriesPerRequest: 2 }),
    // No ready check (INFO): the bus subscribes at once, and a subscribe sent while the check is still pending leaves
    // the client in subscriber mode before INFO's answer — the check then fails and no message is ever delivered.
    subscribe: await redisClient(url, logger, 'cluster-subscribe', { enableReadyCheck: false }),
    limits: await redisClient(url, logger, 'limits', { maxRetriesPerRequest: 2 }),
    queryRate: await redisClient(url, logger, 'query-rate', { maxRetriesPerRequest: 1 }),
  };
}
