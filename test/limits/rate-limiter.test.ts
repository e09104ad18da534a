// The limiter on its own, on in-process and (with TEST_REDIS_URL) Redis counters: requests and tokens per minute,
// in-flight slots, the x-ratelimit-* headers, and a Retry-After that is exactly the time until the refusing window
// resets (the headers' own formats: rate-limit-headers.test.ts). In memory the clock is injected (a minute passes at
// once); on Redis the window is shortened to 1.8 s.
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.ts';
import { MemoryCounters, RedisCounters } from '../../src/limits/counters.ts';
import { RedisAddressWindows } from '../../src/limits/address-windows.ts';
import { hasLimits, RateLimiter } from '../../src/limits/rate-limiter.ts';
import { isGatewayError, type GatewayError } from '../../src/errors/gateway-error.ts';

const principal = (over: Partial<Principal> = {}): Principal => ({
  tokenId: `tok_${Math.random().toString(36).slice(2)}`,
  name: 't',
  billing: null,
  models: null,
  quota: null,
  rpmLimit: null,
  tpmLimit: null,
  concurrencyLimit: null,
  ...over,
});

interface Backend {
  limiter(): RateLimiter;
  /** Let `ms` pass for the limiter's windows. */
  pass(ms: number): Promise<void>;
}

function memoryBackend(): Backend {
  // Mid-minute on the wall clock: a window that opens here must not reset at the next whole minute.
  let now = 1_700_000_030_000;
  return {
    limiter: () => new RateLimiter(new MemoryCounters(() => now)),
    pass: async (ms) => {
      now += ms;
    },
  };
}

const redisUrl = process.env.TEST_REDIS_URL;
function redisBackend(): Backend {
  const prefix = `tollway-test-${process.pid}-${Date.now()}:`;
  return {
    limiter: () => new RateLimiter(new RedisCounters(new Redis(redisUrl!), prefix), 1_800),
    pass: (ms) => new Promise((r) => setTimeout(r, ms)),
  };
}

const backends: Array<[string, () => Backend]> = [['memory', memoryBackend]];
if (redisUrl) backends.push(['redis', redisBackend]);

async function refusal(p: Promise<unknown>): Promise<GatewayError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  if (!isGatewayError(e)) throw new Error(`expected a refusal, got ${String(e)}`);
  return e;
}

describe.each(backends)('rate limiter on %s counters', (_name, backend) => {
  it('admits up to the requests limit, counting down the remaining requests, then refuses with 429 and the headers', async () => {
    const b = backend();
    const lim = b.limiter();
    const p = principal({ rpmLimit: 3 });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) remaining.push((await lim.admit(p)).headers!['x-ratelimit-remaining-requests']!);
    expect(remaining).toEqual(['2', '1', '0']);
    const e = await refusal(lim.admit(p));
    expect([e.code, e.status]).toEqual(['rate_limit_exceeded', 429]);
    expect(e.headers).toMatchObject({ 'x-ratelimit-limit-requests': '3', 'x-ratelimit-remaining-requests': '0' });
    expect(e.headers?.['x-ratelimit-reset-requests']).toMatch(/^(\d+ms|\d+s|\dm\d+s)$/);
    expect(e.headers?.['x-ratelimit-limit-tokens']).toBeUndefined();
    await lim.close();
  });

  it('refused and told N seconds: refused again just before, admitted after N seconds', async () => {
    const b = backend();
    const lim = b.limiter();
    const p = principal({ rpmLimit: 2 });
    await lim.admit(p);
    await b.pass(400);
    await lim.admit(p);
    const first = await refusal(lim.admit(p));
    const n = Number(first.headers?.['retry-after']);
    expect(n).toBeGreaterThanOrEqual(1);
    // The window resets within the last of those N seconds.
    await b.pass((n - 1) * 1000);
    await refusal(lim.admit(p));
    await b.pass(1000);
    const again = await lim.admit(p);
    expect(again.headers?.['x-ratelimit-remaining-requests']).toBe('1');
    await lim.close();
  });

  it('tokens per minute: counted after each call, refused once the window is at the limit, admitted after Retry-After', async () => {
    const b = backend();
    const lim = b.limiter();
    const p = principal({ tpmLimit: 100 });
    const fresh = await lim.admit(p);
    expect(fresh.headers).toEqual({
      'x-ratelimit-limit-tokens': '100',
      'x-ratelimit-remaining-tokens': '100',
      'x-ratelimit-reset-tokens': '0s',
    });
    await lim.addTokens(p, 60);
    expect((await lim.admit(p)).headers?.['x-ratelimit-remaining-tokens']).toBe('40');
    // Admitted below the limit, this call's tokens take the window past it: the documented overshoot.
    await lim.addTokens(p, 60);
    const e = await refusal(lim.admit(p));
    expect(e.code).toBe('rate_limit_exceeded');
    expect(e.message).toContain('100 tokens per minute');
    expect(e.headers?.['x-ratelimit-remaining-tokens']).toBe('0');
    const n = Number(e.headers?.['retry-after']);
    await b.pass(n * 1000);
    expect((await lim.admit(p)).headers?.['x-ratelimit-remaining-tokens']).toBe('100');
    await lim.close();
  });

  it('both windows: both header trios; a refusal by both waits for the later reset', async () => {
    const b = backend();
    const lim = b.limiter();
    const p = principal({ rpmLimit: 1, tpmLimit: 10 });
    const ok = await lim.admit(p);
    expect(Object.keys(ok.headers!).sort()).toEqual([
      'x-ratelimit-limit-requests',
      'x-ratelimit-limit-tokens',
      'x-ratelimit-remaining-requests',
      'x-ratelimit-remaining-tokens',
      'x-ratelimit-reset-requests',
      'x-ratelimit-reset-tokens',
    ]);
    await b.pass(500);
    await lim.addTokens(p, 10); // the tokens window opens half a second after the requests window
    const e = await refusal(lim.admit(p));
    expect(e.message).toMatch(/1 requests per minute and 10 tokens per minute/);
    const n = Number(e.headers?.['retry-after']);
    await b.pass(n * 1000);
    expect((await lim.admit(p)).headers?.['x-ratelimit-remaining-tokens']).toBe('10');
    await lim.close();
  });

  it('limits concurrency and frees a slot on release', async () => {
    const lim = backend().limiter();
    const p = principal({ concurrencyLimit: 2 });
    const r1 = (await lim.admit(p)).release;
    const r2 = (await lim.admit(p)).release;
    await expect(lim.admit(p)).rejects.toMatchObject({ code: 'concurrency_limited' });
    r1?.();
    r1?.(); // double release must not free two slots
    await new Promise((r) => setTimeout(r, 20));
    const r3 = (await lim.admit(p)).release;
    await expect(lim.admit(p)).rejects.toMatchObject({ code: 'concurrency_limited' });
    r2?.();
    r3?.();
    await lim.close();
  });

  it('tokens without limits are not counted and get no headers', async () => {
    const lim = backend().limiter();
    const p = principal();
    expect(hasLimits(p)).toBe(false);
    for (let i = 0; i < 50; i++) expect(await lim.admit(p)).toEqual({ release: null, headers: null });
    await lim.close();
  });
});

describe.runIf(redisUrl)('rate limits shared across instances through Redis', () => {
  it('two limiters (two gateway instances) share one requests budget and one tokens window', async () => {
    const prefix = `tollway-shared-${process.pid}-${Date.now()}:`;
    const a = new RateLimiter(new RedisCounters(new Redis(redisUrl!), prefix));
    const b = new RateLimiter(new RedisCounters(new Redis(redisUrl!), prefix));
    const p = principal({ rpmLimit: 4 });
    await a.admit(p);
    await b.admit(p);
    await a.admit(p);
    await b.admit(p);
    await expect(a.admit(p)).rejects.toMatchObject({ code: 'rate_limit_exceeded' });
    await expect(b.admit(p)).rejects.toMatchObject({ code: 'rate_limit_exceeded' });
    const q = principal({ tpmLimit: 50 });
    await a.addTokens(q, 50);
    await expect(b.admit(q)).rejects.toMatchObject({ code: 'rate_limit_exceeded' });
    await a.close();
    await b.close();
  });
});

describe.runIf(redisUrl)('in-flight slots in Redis are leases of the instance holding them', () => {
  const LEASE_MS = 400;
  const until = async (cond: () => Promise<boolean>): Promise<void> => {
    for (let i = 0; i < 100 && !(await cond()); i++) await new Promise((r) => setTimeout(r, 50));
  };

  it("an instance that stops renewing (dead) stops counting within its lease; a live one's slots keep counting past it", async () => {
    const prefix = `tollway-slots-${process.pid}-${Date.now()}:`;
    const deadRedis = new Redis(redisUrl!);
    const dead = new RateLimiter(new RedisCounters(deadRedis, prefix, LEASE_MS));
    const live = new RateLimiter(new RedisCounters(new Redis(redisUrl!), prefix, LEASE_MS));
    const p = principal({ concurrencyLimit: 2 });
    await dead.admit(p);
    await dead.admit(p);
    await expect(live.admit(p)).rejects.toMatchObject({ code: 'concurrency_limited' });
    // The process is gone: no release, no renewal, no goodbye.
    deadRedis.disconnect();
    const taken: Array<() => void> = [];
    await until(async () => {
      const a = await live.admit(p).catch(() => null);
      if (a?.release) taken.push(a.release);
      return taken.length === 2;
    });
    expect(taken).toHaveLength(2);
    // Held past several leases, the live instance's slots still count (its renewals keep them).
    await new Promise((r) => setTimeout(r, LEASE_MS * 3));
    const other = new RateLimiter(new RedisCounters(new Redis(redisUrl!), prefix, LEASE_MS));
    await expect(other.admit(p)).rejects.toMatchObject({ code: 'concurrency_limited' });
    for (const release of taken) release();
    await until(async () => {
      const a = await other.admit(p).catch(() => null);
      a?.release?.();
      return a !== null;
    });
    await expect(other.admit(p)).resolves.toMatchObject({ release: expect.any(Function) });
    await live.close();
    await other.close();
  });
});

describe('counters that cannot be reached', () => {
  it('a request is admitted uncounted (no headers, no slot) and the failure is reported, never turned into an error answer', async () => {
    // A real client on a port nobody listens on: every command fails after one reconnect attempt.
    const redis = new Redis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 1,
      retryStrategy: () => 20,
      lazyConnect: true,
    });
    redis.on('error', () => undefined);
    const reported: unknown[] = [];
    const limiter = new RateLimiter(
      new RedisCounters(redis),
      60_000,
      (e) => reported.push(e),
      new RedisAddressWindows(redis),
    );
    try {
      const a = await limiter.admit(principal({ rpmLimit: 1, tpmLimit: 10, concurrencyLimit: 1 }));
      expect(a).toEqual({ release: null, headers: null });
      expect(reported).toHaveLength(1);
      // Counted events (console sign-in failures) read as none and count nothing, reported too.
      expect(await limiter.events('k')).toEqual({ n: 0, resetMs: 0, full: false });
      expect(await limiter.countEvent('k', 60_000, 5)).toEqual({ n: 0, resetMs: 0, full: false });
      expect(reported).toHaveLength(3);
      reported.length = 1;
      // A refusal is still a refusal: only counter failures are let through.
      const memory = new RateLimiter(new MemoryCounters(), 60_000, (e) => reported.push(e));
      const p = principal({ rpmLimit: 1 });
      await memory.admit(p);
      await expect(memory.admit(p)).rejects.toMatchObject({ code: 'rate_limit_exceeded' });
      expect(reported).toHaveLength(1);
    } finally {
      redis.disconnect();
    }
  });
});
