// Accounts own tokens, budgets reset each calendar period, price groups set what an account is charged — through the
// official openai SDK against a real gateway, on the store TOLLWAY_TEST_DIALECT names. The meter's clock is the
// test's (`now`): a budget period ends because the test moves the clock, never by sleeping.
import type { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { ADMIN_KEY, useHarness, type Harness } from '../support/harness.ts';
import { openaiClient } from '../support/sdk.ts';

const IMAGE_PRICE = 200_000; // qwx-image-2.0, default catalogue
let now = Date.UTC(2026, 0, 31, 23, 0, 0);

async function adminJson<T = Record<string, unknown>>(
  h: Harness,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; body: T }> {
  const r = await h.fetch(path, { method, token: ADMIN_KEY, ...(json !== undefined ? { json } : {}) });
  return { status: r.status, body: (await r.json()) as T };
}

async function account(h: Harness, body: Record<string, unknown>): Promise<string> {
  const r = await adminJson<{ id: string }>(h, 'POST', '/admin/accounts', body);
  expect(r.status).toBe(201);
  return r.body.id;
}

async function accountToken(
  h: Harness,
  accountId: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; token: string }> {
  const r = await adminJson<{ id: string; token: string; account_id: string }>(h, 'POST', '/admin/tokens', {
    name: 'app',
    account_id: accountId,
    ...extra,
  });
  expect(r.status).toBe(201);
  expect(r.body.account_id).toBe(accountId);
  return r.body;
}

const image = (h: Harness, token: string, i = 0) =>
  openaiClient(h, token).images.generate({ model: 'qwx-image-2.0', prompt: `cat ${i}`, n: 1 });

describe('accounts', () => {
  const t = useHarness({ clock: () => now });

  it('lists accounts a page at a time, edits one, and refuses bad input in the family shape', async () => {
    const { h } = t;
    const ids = [
      await account(h, { name: 'a1' }),
      await account(h, { name: 'a2', quota: 5 }),
      await account(h, { name: 'a3', time_zone: 'Europe/Paris' }),
    ];
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const r = await adminJson<{ data: Array<{ id: string }>; has_more: boolean; next_cursor?: string }>(
        h,
        'GET',
        `/admin/accounts?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(r.status).toBe(200);
      expect(r.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.data.map((a) => a.id));
      cursor = r.body.has_more ? r.body.next_cursor : undefined;
    } while (cursor);
    for (const id of ids) expect(seen).toContain(id);
    expect(new Set(seen).size).toBe(seen.length);
    const p = await adminJson<{ name: string; budgets: unknown[]; quota: number }>(
      h,
      'PATCH',
      `/admin/accounts/${ids[1]}`,
      {
        name: 'renamed',
        budgets: [{ period: 'month', limit: 9 }],
      },
    );
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ name: 'renamed', quota: 5, budgets: [{ period: 'month', limit: 9 }] });
    for (const bad of [
      { name: 'x', time_zone: 'Mars/Olympus' },
      { name: 'x', budgets: [{ period: 'year', limit: 1 }] },
      {
        name: 'x',
        budgets: [
          { period: 'day', limit: 1 },
          { period: 'day', limit: 2 },
        ],
      },
      { name: 'x', price_group: 'nope' },
      { name: 'x', quotas: 1 },
    ]) {
      const r = await adminJson<{ error: { code: string; param: string; request_id: string } }>(
        h,
        'POST',
        '/admin/accounts',
        bad,
      );
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_parameter');
      expect(r.body.error.request_id).toBeTruthy();
    }
    const unknown = await adminJson(h, 'POST', '/admin/tokens', { name: 'x', account_id: 'acc_nope' });
    expect(unknown.status).toBe(400);
  });

  it('an account quota is shared by its tokens: 50 parallel calls from 5 tokens charge at most the quota (5 images)', async () => {
    const { h } = t;
    const id = await account(h, { name: 'shared', quota: 5 * IMAGE_PRICE });
    const tokens = await Promise.all(Array.from({ length: 5 }, () => accountToken(h, id)));
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => image(h, tokens[i % 5]!.token, i)));
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    expect(ok).toBeGreaterThanOrEqual(1);
    expect(ok).toBeLessThanOrEqual(5);
    for (const r of results)
      if (r.status === 'rejected')
        expect([(r.reason as APIError).status, (r.reason as APIError).code]).toEqual([429, 'insufficient_quota']);
    const acc = await adminJson<{ spent: number; held: number; quota: number }>(h, 'GET', `/admin/accounts/${id}`);
    expect(acc.body.held).toBe(0);
    expect(acc.body.spent).toBe(ok * IMAGE_PRICE);
    const usage = await adminJson<{ tokens: string[]; usage: { total: { requests: number; amount: number } } }>(
      h,
      'GET',
      `/admin/accounts/${id}/usage`,
    );
    expect(usage.body.tokens.sort()).toEqual(tokens.map((x) => x.id).sort());
    expect(usage.body.usage.total).toMatchObject({ requests: ok, amount: ok * IMAGE_PRICE });
    // A top-up is idempotent by its key, and lets the tokens call again.
    for (let i = 0; i < 2; i++) {
      const r = await adminJson<{ quota: number; topup: { credited: boolean } }>(
        h,
        'POST',
        `/admin/accounts/${id}/topup`,
        {
          amount: IMAGE_PRICE,
          idempotency_key: 'k1',
        },
      );
      expect(r.body).toMatchObject({ quota: 6 * IMAGE_PRICE, topup: { credited: i === 0 } });
    }
  });

  it('a day budget refuses with 429, Retry-After and x-budget-reset, and admits again in the next day', async () => {
    const { h } = t;
    now = Date.UTC(2026, 0, 31, 23, 0, 0);
    const id = await account(h, { name: 'daily', budgets: [{ period: 'day', limit: IMAGE_PRICE }] });
    const tok = await accountToken(h, id);
    await image(h, tok.token, 1);
    const refused = await image(h, tok.token, 2).then(
      () => null,
      (e: unknown) => e as APIError,
    );
    expect(refused?.status).toBe(429);
    expect(refused?.code).toBe('insufficient_quota');
    expect(refused?.headers?.get('x-should-retry')).toBe('false');
    expect(refused?.headers?.get('retry-after')).toBe('3600');
    expect(refused?.headers?.get('x-budget-reset')).toBe('2026-02-01T00:00:00.000Z');
    expect(refused?.headers?.get('x-budget-period')).toBe('day');
    const u = (await openaiClient(h, tok.token).get('/usage')) as {
      account: { budgets: Array<{ period: string; spent: number; remaining: number; resets_at: number }> };
    };
    expect(u.account.budgets).toEqual([
      expect.objectContaining({ period: 'day', spent: IMAGE_PRICE, remaining: 0, resets_at: Date.UTC(2026, 1, 1) }),
    ]);
    now = Date.UTC(2026, 1, 1, 0, 0, 1);
    await image(h, tok.token, 3);
    const acc = await adminJson<{ spent: number }>(h, 'GET', `/admin/accounts/${id}`);
    expect(acc.body.spent).toBe(2 * IMAGE_PRICE);
  });

  it("a token budget in the account's time zone: the month starts at local midnight", async () => {
    const { h } = t;
    // 2026-01-31T15:30Z is 2026-02-01 00:30 in Tokyo: a new month there.
    now = Date.UTC(2026, 0, 31, 14, 30);
    const id = await account(h, { name: 'tokyo', time_zone: 'Asia/Tokyo' });
    const tok = await accountToken(h, id, { budgets: [{ period: 'month', limit: IMAGE_PRICE }] });
    await image(h, tok.token, 1);
    const refused = await image(h, tok.token, 2).then(
      () => null,
      (e: unknown) => e as APIError,
    );
    expect(refused?.headers?.get('x-budget-reset')).toBe('2026-01-31T15:00:00.000Z');
    now = Date.UTC(2026, 0, 31, 15, 30);
    await image(h, tok.token, 3);
  });

  it('a price group charges its price, the ledger keeps the list price, and a change applies from then on', async () => {
    const { h } = t;
    now = Date.now();
    expect((await adminJson(h, 'PUT', '/admin/price-groups/half', { multiplier: 0.5 })).status).toBe(201);
    const id = await account(h, { name: 'grouped', price_group: 'half' });
    const tok = await accountToken(h, id);
    await image(h, tok.token, 1);
    expect(
      (
        await adminJson(h, 'PUT', '/admin/price-groups/half', {
          prices: { 'qwx-image-2.0': { unit: 'image', perImage: 30_000 } },
        })
      ).status,
    ).toBe(200);
    await image(h, tok.token, 2);
    const ledger = await h.store.db
      .selectFrom('ledger')
      .select(['amount', 'list_amount', 'price_group', 'account_id', 'request_id'])
      .where('token_id', '=', tok.id)
      .orderBy('id')
      .execute();
    expect(ledger.map((l) => [Number(l.amount), Number(l.list_amount), l.price_group, l.account_id])).toEqual([
      [IMAGE_PRICE / 2, IMAGE_PRICE, 'half', id],
      [30_000, IMAGE_PRICE, 'half', id],
    ]);
    const usage = await adminJson<{ usage: { total: { amount: number; list_amount: number } } }>(
      h,
      'GET',
      `/admin/accounts/${id}/usage`,
    );
    expect(usage.body.usage.total).toEqual(
      expect.objectContaining({ amount: IMAGE_PRICE / 2 + 30_000, list_amount: 2 * IMAGE_PRICE }),
    );
    const bill = await adminJson<{ data: Array<{ amount: number; list_amount: number }> }>(
      h,
      'GET',
      `/admin/bills?token_id=${tok.id}&period=month`,
    );
    expect(bill.body.data.map((l) => [l.amount, l.list_amount])).toEqual([[IMAGE_PRICE / 2 + 30_000, 2 * IMAGE_PRICE]]);
    // Reconciliation re-prices each line at the group's price it recorded (no false difference), and shows the list
    // price.
    const rec = await adminJson<{
      mismatches: Array<{ key: string }>;
      groups: Array<{ model: string; ledger_amount: number; ledger_list_amount: number }>;
    }>(h, 'GET', `/admin/reconcile?from=${now - 60_000}&to=${Date.now() + 60_000}`);
    expect(rec.status).toBe(200);
    // (Earlier tests of this file ran on a clock in January: their request-log rows, at real time, have their ledger
    // lines elsewhere.)
    const ours = new Set(ledger.map((l) => l.request_id));
    expect(rec.body.mismatches.filter((m) => ours.has(m.key))).toEqual([]);
    expect(
      rec.body.groups
        .filter((g) => g.model === 'qwx-image-2.0')
        .reduce((a, g) => [a[0]! + g.ledger_amount, a[1]! + g.ledger_list_amount], [0, 0]),
    ).toEqual([IMAGE_PRICE / 2 + 30_000, 2 * IMAGE_PRICE]);
  });

  it('a price group with multiplier null or prices null is refused with 400 naming the field, and nothing is stored', async () => {
    const { h } = t;
    for (const [field, body] of [
      ['multiplier', { multiplier: null }],
      ['prices', { multiplier: 2, prices: null }],
    ] as const) {
      const r = await adminJson<{ error: { code: string; param: string; message: string } }>(
        h,
        'PUT',
        '/admin/price-groups/nulled',
        body,
      );
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_parameter', param: field });
      expect(r.body.error.message).toContain(field);
    }
    expect((await adminJson(h, 'GET', '/admin/price-groups/nulled')).status).toBe(404);
    // Left out, the multiplier is the list price's.
    const ok = await adminJson<{ multiplier: number }>(h, 'PUT', '/admin/price-groups/nulled', {});
    expect(ok.status).toBe(201);
    expect(ok.body.multiplier).toBe(1);
  });

  it('revoking an account refuses all its tokens at once', async () => {
    const { h } = t;
    const id = await account(h, { name: 'gone' });
    const a = await accountToken(h, id);
    const b = await accountToken(h, id);
    await image(h, a.token);
    await image(h, b.token);
    expect(
      (await adminJson<{ revoked_at: number }>(h, 'DELETE', `/admin/accounts/${id}`)).body.revoked_at,
    ).toBeGreaterThan(0);
    for (const tok of [a, b]) {
      const e = await image(h, tok.token).then(
        () => null,
        (x: unknown) => x as APIError,
      );
      expect([e?.status, e?.code]).toEqual([401, 'token_revoked']);
    }
    expect((await adminJson(h, 'POST', '/admin/tokens', { name: 'late', account_id: id })).status).toBe(409);
  });
});
