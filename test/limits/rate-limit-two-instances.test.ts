// Two gateway instances on one store sharing one Redis, as two processes of a cluster: a token's requests-per-minute
// limit of k admits at most k calls in all, however the parallel calls split across the instances, and its tokens
// window filled through one instance refuses through the other.
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { useHarness, type GatewayInstance } from '../support/harness.ts';

const redisUrl = process.env.TEST_REDIS_URL;

describe.runIf(redisUrl)('rate limits across two instances sharing Redis', () => {
  const t = useHarness({ env: { REDIS_URL: redisUrl ?? '', TOLLWAY_TASK_POLLER: 'false' } });

  async function limitedToken(limits: {
    rpm_limit?: number;
    tpm_limit?: number;
  }): Promise<{ id: string; token: string }> {
    const r = await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'two', ...limits } });
    expect(r.status).toBe(201);
    return (await r.json()) as { id: string; token: string };
  }

  const chat = (url: string, token: string, i: number) =>
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwx3.7-plus', messages: [{ role: 'user', content: `hello ${i}` }] }),
    }).then(async (r) => ({
      status: r.status,
      code: r.status === 200 ? null : ((await r.json()) as { error: { code: string } }).error.code,
    }));

  it('an rpm limit of 5: 40 parallel chats split across both instances, exactly 5 admitted', async () => {
    const other: GatewayInstance = await t.h.instance();
    const { token } = await limitedToken({ rpm_limit: 5 });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => chat(i % 2 ? other.url : t.h.url, token, i)),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    for (const r of results.filter((x) => x.status !== 200))
      expect(r).toEqual({ status: 429, code: 'rate_limit_exceeded' });
  });

  it('a tokens window filled through one instance refuses through the other', async () => {
    const other = await t.h.instance();
    const { id, token } = await limitedToken({ tpm_limit: 5 });
    expect((await chat(t.h.url, token, 1)).status).toBe(200);
    // The call's tokens are counted after its answer, not awaited on the request path: wait until Redis has them.
    const redis = new Redis(redisUrl!);
    try {
      for (let i = 0; i < 100 && Number(await redis.get(`tollway:win:tok:${id}`)) === 0; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(Number(await redis.get(`tollway:win:tok:${id}`))).toBeGreaterThan(5);
    } finally {
      redis.disconnect();
    }
    expect(await chat(other.url, token, 2)).toEqual({ status: 429, code: 'rate_limit_exceeded' });
  });
});
