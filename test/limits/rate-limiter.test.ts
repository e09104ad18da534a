import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.ts';
import { MemoryCounters, RateLimiter, RedisCounters, type LimitCounters } from '../../src/limits/rate-limiter.ts';
import { useHarness } from '../support/harness.ts';
import type { AErr, BErr } from '../support/error-shapes.ts';

const principal = (over: Partial<Principal> = {}): Principal => ({
  tokenId: `tok_${Math.random().toString(36).slice(2)}`,
  name: 't',
  models: null,
  quota: null,
  rpmLimit: null,
  concurrencyLimit: null,
  ...over,
});

const backends: Array<[string, () => LimitCounters]> = [['memory', () => new MemoryCounters()]];
const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) backends.push(['redis', () => new RedisCounters(new Redis(redisUrl), `tollway-test-${process.pid}-${Date.now()}:`)]);

describe.each(backends)('rate limiter on %s counters', (_name, make) => {
  it('admits up to the rpm limit then refuses with Retry-After', async () => {
    const lim = new RateLimiter(make());
    const p = principal({ rpmLimit: 3 });
    for (let i = 0; i < 3; i++) await lim.admit(p);
    const err = await lim.admit(p).then(() => null, (e: unknown) => e as { code: string; headers: Record<string, string> });
    expect(err?.code).toBe('rate_limited');
    expect(Number(err?.headers['retry-after'])).toBeGreaterThan(0);
    await lim.close();
  });

  it('limits concurrency and frees a slot on release', async () => {
    const lim = new RateLimiter(make());
    const p = principal({ concurrencyLimit: 2 });
    const r1 = await lim.admit(p);
    const r2 = await lim.admit(p);
    await expect(lim.admit(p)).rejects.toMatchObject({ code: 'concurrency_limited' });
    r1?.();
    r1?.(); // double release must not free two slots
    const r3 = await lim.admit(p);
    await expect(lim.admit(p)).rejects.toMatchObject({ code: 'concurrency_limited' });
    r2?.();
    r3?.();
    await lim.close();
  });

  it('tokens without limits are not counted', async () => {
    const lim = new RateLimiter(make());
    const p = principal();
    for (let i = 0; i < 50; i++) expect(await lim.admit(p)).toBeNull();
    await lim.close();
  });
});

describe.runIf(redisUrl)('rate limits shared across instances through Redis', () => {
  it('two limiters (two gateway instances) share one rpm budget', async () => {
    const prefix = `tollway-shared-${process.pid}-${Date.now()}:`;
    const a = new RateLimiter(new RedisCounters(new Redis(redisUrl!), prefix));
    const b = new RateLimiter(new RedisCounters(new Redis(redisUrl!), prefix));
    const p = principal({ rpmLimit: 4 });
    await a.admit(p);
    await b.admit(p);
    await a.admit(p);
    await b.admit(p);
    await expect(a.admit(p)).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(b.admit(p)).rejects.toMatchObject({ code: 'rate_limited' });
    await a.close();
    await b.close();
  });
});

describe('rate limit through the real server', () => {
  const t = useHarness();

  it('answers 429 rate_limited with Retry-After in both family shapes', async () => {
    const created = (await (await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'rl', rpm_limit: 2 } })).json()) as { token: string };
    expect((await t.h.fetch('/v1/models', { token: created.token })).status).toBe(200);
    expect((await t.h.fetch('/v1/models', { token: created.token })).status).toBe(200);
    const r = await t.h.fetch('/v1/models', { token: created.token });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = (await r.json()) as BErr;
    expect(body.error.code).toBe('rate_limited');
    expect(body.error.request_id).toBe(r.headers.get('x-gateway-request-id'));
    const a = await t.h.fetch('/vidx/v1/videos/text2video', { token: created.token, method: 'POST', json: { prompt: 'x' } });
    expect(a.status).toBe(429);
    const env = (await a.json()) as AErr;
    expect(env.code).toBe(1302);
    expect(env.data).toBeNull();
  });
});
