// A quota lowered through the admin API stops a busy token at once: the token's allowance (allowances.ts), placed
// under the old quota, takes no call after the PATCH answered — for an account's quota, for an account token's own
// quota, and (with Redis) on another instance than the one the PATCH went through. The meter's clock stands still, so
// the allowances the burst placed are neither idle nor old when the PATCH lands.
import { describe, expect, it } from 'vitest';
import { ADMIN_KEY, useHarness } from '../support/harness.ts';

const redisUrl = process.env.TEST_REDIS_URL;
const frozen = Date.now();

describe('lowering a quota while a token is busy', () => {
  const t = useHarness({
    env: { ...(redisUrl ? { REDIS_URL: redisUrl } : {}), TOLLWAY_TASK_POLLER: 'false' },
    clock: () => frozen,
  });
  const admin = async (method: string, path: string, json?: unknown) => {
    const r = await t.h.fetch(path, { method, token: ADMIN_KEY, ...(json !== undefined ? { json } : {}) });
    expect(r.status).toBeLessThan(300);
    return (await r.json()) as { id: string; token: string };
  };
  const chat = (url: string, secret: string, i: number) =>
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'qwx3.7-plus',
        max_tokens: 64,
        messages: [{ role: 'user', content: `hello ${i}` }],
      }),
    }).then(async (r) => ({ status: r.status, code: ((await r.json()) as { error?: { code?: string } }).error?.code }));
  /** 40 calls at once: the token is busy and reserves from an allowance on the instance at `url`. */
  const busy = async (url: string, tokenId: string, secret: string) => {
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => chat(url, secret, i)));
    expect(burst.map((r) => r.status)).toEqual(Array(40).fill(200));
    const leases = await t.h.store.db
      .selectFrom('holds')
      .select('hold_key')
      .where('token_id', '=', tokenId)
      .where('state', '=', 'held')
      .where('hold_key', 'like', 'lease_%')
      .execute();
    expect(leases).toHaveLength(1);
  };
  /** Calls after the PATCH: every one refused. */
  const refusedAfter = async (url: string, secret: string) => {
    const calls = [];
    for (let i = 0; i < 10; i++) calls.push(await chat(url, secret, 100 + i));
    expect(calls).toEqual(Array(10).fill({ status: 429, code: 'insufficient_quota' }));
  };

  it("an account's quota lowered: the next calls of its busy token are refused", async () => {
    const acc = await admin('POST', '/admin/accounts', { name: 'lowered', quota: 1_000_000_000_000 });
    const tok = await admin('POST', '/admin/tokens', { name: 'app', account_id: acc.id });
    await busy(t.h.url, tok.id, tok.token);
    await admin('PATCH', `/admin/accounts/${acc.id}`, { quota: 1 });
    await refusedAfter(t.h.url, tok.token);
  });

  it("an account token's own quota lowered: its next calls are refused", async () => {
    const acc = await admin('POST', '/admin/accounts', { name: 'token-lowered', quota: 1_000_000_000_000 });
    const tok = await admin('POST', '/admin/tokens', { name: 'app', account_id: acc.id, quota: 1_000_000_000_000 });
    await busy(t.h.url, tok.id, tok.token);
    await admin('PATCH', `/admin/tokens/${tok.id}`, { quota: 1 });
    await refusedAfter(t.h.url, tok.token);
  });

  it.runIf(redisUrl)(
    'lowered through one instance, the token busy on another: the other refuses its next calls',
    async () => {
      const other = await t.h.instance();
      const acc = await admin('POST', '/admin/accounts', { name: 'cluster-lowered', quota: 1_000_000_000_000 });
      const tok = await admin('POST', '/admin/tokens', { name: 'app', account_id: acc.id, quota: 1_000_000_000_000 });
      await busy(other.url, tok.id, tok.token);
      await admin('PATCH', `/admin/tokens/${tok.id}`, { quota: 1 });
      await refusedAfter(other.url, tok.token);
      const acc2 = await admin('POST', '/admin/accounts', { name: 'cluster-lowered-2', quota: 1_000_000_000_000 });
      const tok2 = await admin('POST', '/admin/tokens', { name: 'app', account_id: acc2.id });
      await busy(other.url, tok2.id, tok2.token);
      await admin('PATCH', `/admin/accounts/${acc2.id}`, { quota: 1 });
      await refusedAfter(other.url, tok2.token);
    },
  );
});
