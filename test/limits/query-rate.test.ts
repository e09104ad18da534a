// The upstream query rate per account: never more than rate + burst queries in any one second, whatever the
// phase; a client's reads hold a third of it; two threads on one shared memory (and two instances on one Redis)
// keep one query rate between them.
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { MemoryQueryRate, newQueryRateMemory, RedisQueryRate } from '../../src/limits/query-rate.ts';

/** Times (µs) at which queries were admitted, asked every `stepUs` for `seconds`. */
function admittedTimes(
  b: MemoryQueryRate,
  clock: { now: bigint },
  stepUs: bigint,
  seconds: number,
  who: 'poller' | 'client' = 'poller',
): bigint[] {
  const out: bigint[] = [];
  const end = clock.now + BigInt(seconds) * 1_000_000n;
  for (; clock.now < end; clock.now += stepUs) if (b.takeNow('acct', who)) out.push(clock.now);
  return out;
}

/** The most admitted queries within any one-second span. */
function peak(times: bigint[]): number {
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= 1_000_000n) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe('the query rate in memory', () => {
  it('15/s with a burst of 2: at most 17 in any second, and 15 a second on average', () => {
    const clock = { now: 1_000_000_000n };
    const b = new MemoryQueryRate({ qps: 15, burst: 2 }, newQueryRateMemory(), () => clock.now);
    const times = admittedTimes(b, clock, 1_000n, 20);
    expect(peak(times)).toBeLessThanOrEqual(17);
    expect(times.length).toBeGreaterThanOrEqual(15 * 20);
    expect(times.length).toBeLessThanOrEqual(15 * 20 + 2);
  });

  it("a client's reads get a third of the rate, and what the poller takes counts against them too", () => {
    const clock = { now: 1_000_000_000n };
    const b = new MemoryQueryRate({ qps: 15 }, newQueryRateMemory(), () => clock.now);
    expect(admittedTimes(b, clock, 1_000n, 10, 'client').length).toBeLessThanOrEqual(5 * 10 + 1);
    // The poller alone takes the whole rate; a client then finds no room.
    const poller = admittedTimes(b, clock, 1_000n, 1);
    expect(poller.length).toBeGreaterThanOrEqual(14);
    expect(b.takeNow('acct', 'client')).toBe(false);
  });

  it('two query rates on one shared memory (the request thread and the poller thread) keep one query rate', () => {
    const clock = { now: 1_000_000_000n };
    const memory = newQueryRateMemory();
    const a = new MemoryQueryRate({ qps: 15 }, memory, () => clock.now);
    const b = new MemoryQueryRate({ qps: 15 }, memory, () => clock.now);
    let n = 0;
    for (let i = 0; i < 2000; i++, clock.now += 500n) if ((i % 2 ? a : b).takeNow('acct', 'poller')) n++;
    expect(n).toBeLessThanOrEqual(17);
    expect(n).toBeGreaterThanOrEqual(15);
    // Another account has a rate of its own.
    expect(a.takeNow('other-account', 'poller')).toBe(true);
  });

  it('0 = not rate-limited', () => {
    const b = new MemoryQueryRate({ qps: 0 });
    for (let i = 0; i < 1000; i++) expect(b.takeNow('acct', 'client')).toBe(true);
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
describe.runIf(redisUrl)('the query rate in Redis', () => {
  it('two instances on one Redis admit at most rate + burst within a second, together', async () => {
    const clients = [new Redis(redisUrl!), new Redis(redisUrl!)];
    try {
      const account = `acct-${Math.random()}`;
      const rates = clients.map(
        (r) =>
          new RedisQueryRate(r, { qps: 10, burst: 2 }, new MemoryQueryRate({ qps: 10 }), (e) => {
            throw e;
          }),
      );
      const started = Date.now();
      const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => rates[i % 2]!.take(account, 'poller')));
      const elapsed = Date.now() - started;
      const admitted = answers.filter(Boolean).length;
      expect(admitted).toBeGreaterThanOrEqual(2);
      // 10/s plus the burst of 2 per second begun.
      expect(admitted).toBeLessThanOrEqual(12 * Math.ceil(elapsed / 1000));
      expect(await rates[0]!.claimRound(account, 2000)).toBe(true);
      expect(await rates[1]!.claimRound(account, 2000)).toBe(false);
      await rates[0]!.roundDone(account, 12345);
      expect(await rates[1]!.lastRound(account)).toBe(12345);
    } finally {
      for (const c of clients) c.disconnect();
    }
  });
});
