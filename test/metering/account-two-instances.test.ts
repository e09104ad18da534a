// Two gateway instances, each with its own connection pool to one PostgreSQL database and sharing Redis, as two
// processes of a cluster: an account's quota is one compare-and-set in the database whichever instance reserves,
// and an account revoked through one instance is refused at once by the other (account-changed over Redis).
import type { APIError } from 'openai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { ADMIN_KEY, useHarness, type GatewayInstance } from '../support/harness.ts';
import { testDialect } from '../support/store.ts';

const onPostgres = testDialect() === 'postgres' && !!process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const IMAGE_PRICE = 200_000; // qwx-image-2.0, default catalogue

describe.runIf(onPostgres)('accounts across two instances on one PostgreSQL (+ Redis when configured)', () => {
  const t = useHarness({ env: { ...(redisUrl ? { REDIS_URL: redisUrl } : {}), TOLLWAY_TASK_POLLER: 'false' } });
  let other: GatewayInstance | undefined;
  const second = async () => (other ??= await t.h.instance());
  const admin = async (method: string, path: string, json?: unknown) => {
    const r = await t.h.fetch(path, { method, token: ADMIN_KEY, ...(json !== undefined ? { json } : {}) });
    return (await r.json()) as Record<string, unknown> & { id: string; token: string };
  };
  const client = (url: string, key: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 });

  it('50 parallel calls from 5 tokens of one account, split across both instances: at most the 5 the quota covers succeed', async () => {
    const url2 = (await second()).url;
    const acc = await admin('POST', '/admin/accounts', { name: 'cluster', quota: 5 * IMAGE_PRICE });
    const tokens = await Promise.all(
      Array.from({ length: 5 }, () => admin('POST', '/admin/tokens', { name: 'app', account_id: acc.id })),
    );
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        client(i % 2 ? url2 : t.h.url, tokens[i % 5]!.token).images.generate({
          model: 'qwx-image-2.0',
          prompt: `cat ${i}`,
          n: 1,
        }),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    expect(ok).toBeGreaterThanOrEqual(1);
    expect(ok).toBeLessThanOrEqual(5);
    for (const r of results)
      if (r.status === 'rejected')
        expect([(r.reason as APIError).status, (r.reason as APIError).code]).toEqual([429, 'insufficient_quota']);
    const row = await t.h.store.db
      .selectFrom('accounts')
      .select(['spent', 'held'])
      .where('id', '=', acc.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.held)).toBe(0);
    expect(Number(row.spent)).toBe(ok * IMAGE_PRICE);
    const ledger = await t.h.store.db.selectFrom('ledger').select('amount').where('account_id', '=', acc.id).execute();
    expect(ledger).toHaveLength(ok);
  });

  it.runIf(redisUrl)('revoking an account through one instance refuses its tokens on the other at once', async () => {
    const url2 = (await second()).url;
    const acc = await admin('POST', '/admin/accounts', { name: 'revoked' });
    const tok = await admin('POST', '/admin/tokens', { name: 'app', account_id: acc.id });
    // The other instance has the token cached (its TTL is far longer than this test takes to the refusal).
    await client(url2, tok.token).images.generate({ model: 'qwx-image-2.0', prompt: 'cat', n: 1 });
    await admin('DELETE', `/admin/accounts/${acc.id}`);
    const e = await client(url2, tok.token)
      .images.generate({ model: 'qwx-image-2.0', prompt: 'cat', n: 1 })
      .then(
        () => null,
        (x: unknown) => x as APIError,
      );
    expect([e?.status, e?.code]).toEqual([401, 'token_revoked']);
  });
});
