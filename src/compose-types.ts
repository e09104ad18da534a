// What process life hands the composition root (compose.ts, compose-tasks.ts): what it opened, the keys, and the
// shape of the background task work.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Store } from './store/store.ts';

/** The Redis connections an instance uses when Redis is configured (opened and closed by process-life.ts). */
export interface RedisClients {
  limits: Redis;
  queryRate: Redis;
  publish: Redis;
  subscribe: Redis;
}

/** What process life opened for the objects built here. */
export interface Opened {
  store: Store;
  logger: Logger;
  redis: RedisClients | null;
  /** The in-process query rate's memory: shared with the poller thread, so both threads keep one query rate. */
  queryRateMemory: SharedArrayBuffer;
  /** Who holds this instance's poll leases (the poller thread's, kept across its restarts); default: a new id. */
  taskOwner?: string;
  /** The clock of the meter (budget periods) and the task engine (task times); tests set it. Default Date.now. */
  clock?: () => number;
}

export interface Keys {
  adminKey: string;
  secret: string;
}

/** The background task work this process runs: none, in process, or on its own thread. Start/stop pause it. */
export interface BackgroundPoller {
  start(): Promise<void>;
  stop(): Promise<void>;
}
