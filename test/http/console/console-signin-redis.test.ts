// Wrong console keys are counted in Redis when it is configured: failures made through one instance lock the
// address out of the other instance too. The address is a documentation one behind a trusted proxy hop: other test
// files share the Redis, and a lockout of 127.0.0.1 would refuse their admin calls for a minute.
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';

const redisUrl = process.env.TEST_REDIS_URL;

describe.runIf(redisUrl)('console sign-in failures shared through Redis', () => {
  const t = useHarness({ env: { REDIS_URL: redisUrl ?? '', TOLLWAY_TASK_POLLER: 'false', TOLLWAY_TRUST_PROXY: '1' } });
  const CLIENT = '203.0.113.77';
  const signIn = (url: string, key: string) =>
    fetch(`${url}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': CLIENT },
      body: JSON.stringify({ key }),
    });

  it('5 wrong keys through one instance: the other answers 429 to the right key', async () => {
    const redis = new Redis(redisUrl!);
    try {
      // A window left by an earlier run of this test would be counted too.
      await redis.del(`tollway:win:evt:console-signin:${CLIENT}`);
    } finally {
      redis.disconnect();
    }
    const other = await t.h.instance();
    for (let i = 0; i < 5; i++) expect((await signIn(t.h.url, `wrong-key-${i}-xxxxxxxx`)).status).toBe(403);
    const r = await signIn(other.url, t.h.adminKey);
    expect(r.status).toBe(429);
    expect(r.headers.get('set-cookie')).toBeNull();
  });
});
