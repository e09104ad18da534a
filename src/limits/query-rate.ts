// The upstream query rate: task queries per second per upstream account, shared by every key of the account (the
// upstream's folder declares its rate: Upstream.queryRate). A generic cell rate algorithm: each account has a
// theoretical arrival time (TAT); a query is
// admitted when TAT − tolerance ≤ now, and moves TAT one interval on. At most rate + burst queries fall in any
// one-second span, whatever the phase, so a rate of 15/s with a burst of 2 never shows the upstream more than 17.
//
// Client reads draw on a share of their own as well (a third of the rate), so clients polling many open tasks can
// never take the whole rate from the poller's list rounds, which answer for all of them at once.
//
// In one process the state lives in shared memory, so the poller thread and the request thread share one query rate;
// with Redis it lives there, so every instance shares it (a Lua script keeps the check and the step atomic, on
// Redis's clock).
import type { Redis } from 'ioredis';

export type QueryWho = 'poller' | 'client';

export interface QueryRate {
  /** One upstream query for the account now, if its query rate has room; never waits. */
  take(upstreamAccount: string, who: QueryWho): Promise<boolean>;
  /** The account's list round for the next `ms`: true for the one instance that may run it. */
  claimRound(upstreamAccount: string, ms: number): Promise<boolean>;
  /** A list round of the account, begun at `startedAt` (ms), saw every open task created before it. */
  roundDone(upstreamAccount: string, startedAt: number): Promise<void>;
  /**
   * When the account's last complete list round began (ms; 0 = none): reads of older tasks need no query of their own.
   */
  lastRound(upstreamAccount: string): Promise<number>;
}

/** No limit: every query goes (an engine without one, or an upstream that sets no query limit). */
export const UNLIMITED_QUERY_RATE: QueryRate = {
  take: async () => true,
  claimRound: async () => true,
  roundDone: async () => undefined,
  lastRound: async () => 0,
};

/** Budget parameters in microseconds: the interval between queries and how far ahead of it a burst may run. */
interface Cell {
  intervalUs: bigint;
  toleranceUs: bigint;
}

export interface QueryRateOptions {
  /** Queries per second per account; 0 = unlimited. */
  qps: number;
  /** Queries that may run ahead of the steady rate. */
  burst?: number;
}

const CLIENT_SHARE = 3;
const SLOTS = 512;

function cells(o: QueryRateOptions): { upstreamAccount: Cell; client: Cell } | null {
  if (o.qps <= 0) return null;
  const burst = Math.max(1, o.burst ?? 2);
  const cell = (qps: number, b: number): Cell => {
    const intervalUs = BigInt(Math.ceil(1e6 / qps));
    return { intervalUs, toleranceUs: intervalUs * BigInt(b - 1) };
  };
  return { upstreamAccount: cell(o.qps, burst), client: cell(o.qps / CLIENT_SHARE, 1) };
}

/**
 * FNV-1a: the slot of an account key in the shared table (two accounts in one slot share a query rate: only stricter).
 */
function slotOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SLOTS;
}

/** The memory a query rate keeps its state in: pass it to the poller thread so both threads share one query rate. */
export const newQueryRateMemory = (): SharedArrayBuffer => new SharedArrayBuffer(SLOTS * 3 * 8);

export class MemoryQueryRate implements QueryRate {
  private readonly tat: BigInt64Array;
  private readonly cells: ReturnType<typeof cells>;

  constructor(
    opts: QueryRateOptions,
    memory: SharedArrayBuffer = newQueryRateMemory(),
    private readonly nowUs: () => bigint = () => BigInt(Date.now()) * 1000n,
  ) {
    this.tat = new BigInt64Array(memory);
    this.cells = cells(opts);
  }

  private readonly rounds = new Map<string, number>();

  async take(upstreamAccount: string, who: QueryWho): Promise<boolean> {
    return this.takeNow(upstreamAccount, who);
  }

  async roundDone(upstreamAccount: string, startedAt: number): Promise<void> {
    Atomics.store(this.tat, 2 * SLOTS + slotOf(upstreamAccount), BigInt(startedAt));
  }

  async lastRound(upstreamAccount: string): Promise<number> {
    return Number(Atomics.load(this.tat, 2 * SLOTS + slotOf(upstreamAccount)));
  }

  async claimRound(upstreamAccount: string, ms: number): Promise<boolean> {
    const now = Date.now();
    if ((this.rounds.get(upstreamAccount) ?? 0) > now) return false;
    this.rounds.set(upstreamAccount, now + ms);
    return true;
  }

  takeNow(upstreamAccount: string, who: QueryWho): boolean {
    if (!this.cells) return true;
    const slot = slotOf(upstreamAccount);
    // The client share first: a client refused by the account's query rate has spent only its own share.
    if (who === 'client' && !this.step(SLOTS + slot, this.cells.client)) return false;
    return this.step(slot, this.cells.upstreamAccount);
  }

  private step(i: number, c: Cell): boolean {
    for (;;) {
      const now = this.nowUs();
      const tat = Atomics.load(this.tat, i);
      // biome-ignore lint/complexity/useMathMinMax: bigint operands, which Math.max refuses
      const base = tat > now ? tat : now;
      if (base - c.toleranceUs > now) return false;
      if (Atomics.compareExchange(this.tat, i, tat, base + c.intervalUs) === tat) return true;
    }
  }
}

const SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local next = {}
for i = 1, #KEYS do
  local interval = tonumber(ARGV[2 * i - 1])
  local tolerance = tonumber(ARGV[2 * i])
  local tat = tonumber(redis.call('GET', KEYS[i]) or '0')
  if tat < now then tat = now end
  if tat - tolerance > now then return 0 end
  next[i] = tat + interval
end
for i = 1, #KEYS do
  redis.call('SET', KEYS[i], string.format('%.0f', next[i]), 'PX', math.ceil((next[i] - now) / 1000) + 1000)
end
return 1`;

/** The query rate in Redis, shared by every instance; while Redis cannot answer, this instance's own stands in. */
export class RedisQueryRate implements QueryRate {
  private readonly cells: ReturnType<typeof cells>;

  constructor(
    private readonly redis: Redis,
    opts: QueryRateOptions,
    private readonly fallback: MemoryQueryRate,
    private readonly onError: (e: unknown) => void,
    private readonly prefix = 'tollway:qb:',
  ) {
    this.cells = cells(opts);
    redis.defineCommand('tollwayQueryRate', { lua: SCRIPT });
  }

  async claimRound(upstreamAccount: string, ms: number): Promise<boolean> {
    try {
      return (
        (await this.redis.set(
          `${this.prefix}round:${upstreamAccount}`,
          '1',
          'PX',
          Math.max(1, Math.floor(ms) - 50),
          'NX',
        )) === 'OK'
      );
    } catch (e) {
      this.onError(e);
      return this.fallback.claimRound(upstreamAccount, ms);
    }
  }

  async roundDone(upstreamAccount: string, startedAt: number): Promise<void> {
    await this.fallback.roundDone(upstreamAccount, startedAt);
    await this.redis.set(`${this.prefix}seen:${upstreamAccount}`, String(startedAt), 'PX', 600_000).catch(this.onError);
  }

  async lastRound(upstreamAccount: string): Promise<number> {
    try {
      return Number((await this.redis.get(`${this.prefix}seen:${upstreamAccount}`)) ?? 0);
    } catch (e) {
      this.onError(e);
      return this.fallback.lastRound(upstreamAccount);
    }
  }

  async take(upstreamAccount: string, who: QueryWho): Promise<boolean> {
    const c = this.cells;
    if (!c) return true;
    const keys =
      who === 'client'
        ? [`${this.prefix}client:${upstreamAccount}`, `${this.prefix}${upstreamAccount}`]
        : [`${this.prefix}${upstreamAccount}`];
    const args = who === 'client' ? [c.client, c.upstreamAccount] : [c.upstreamAccount];
    try {
      const call = (this.redis as unknown as Record<string, (...a: unknown[]) => Promise<number>>).tollwayQueryRate!;
      const r = await call.call(
        this.redis,
        keys.length,
        ...keys,
        ...args.flatMap((x) => [String(x.intervalUs), String(x.toleranceUs)]),
      );
      return r === 1;
    } catch (e) {
      this.onError(e);
      return this.fallback.takeNow(upstreamAccount, who);
    }
  }
}
