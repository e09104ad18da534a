// SDK and dashboard edges: the @anthropic-ai/sdk's models.list and models.retrieve get Anthropic's shape (paged by
// after_id), the openai SDK's keep OpenAI's; the legacy billing endpoints that OpenAI and new-api dashboards read
// answer the token's limit and spend in units (cents: hundredths of a unit).
import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { anthropicClient, openaiClient } from '../../support/sdk.ts';
import { flushWriters } from '../../support/store-rows.ts';

const t = useHarness();
let limited: { id: string; token: string };

beforeAll(async () => {
  const r = await t.h.admin('/admin/tokens', {
    method: 'POST',
    json: { name: 'dash', quota: 2_500_000, expires_at: 1_893_456_000_000 },
  });
  limited = (await r.json()) as { id: string; token: string };
  const chat = await t.h.fetch('/v1/chat/completions', {
    method: 'POST',
    token: limited.token,
    json: { model: 'qwx3.7-plus', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(chat.status).toBe(200);
  await flushWriters(t.h);
});

describe('models for each SDK', () => {
  it('Anthropic SDK: models.list pages in its shape, models.retrieve gives one model', async () => {
    const client = anthropicClient(t.h, t.token);
    const first = await client.models.list({ limit: 2 });
    expect(first.data).toHaveLength(2);
    for (const m of first.data) {
      expect(m.type).toBe('model');
      expect(m.display_name).toBe(m.id);
      expect(m.created_at).toBe('2026-01-01T00:00:00.000Z');
    }
    expect(first.has_more).toBe(true);
    expect(first.first_id).toBe(first.data[0]!.id);
    expect(first.last_id).toBe(first.data[1]!.id);
    const all: string[] = [];
    for await (const m of client.models.list({ limit: 3 })) all.push(m.id);
    const openai = await openaiClient(t.h, t.token).models.list();
    expect(all).toEqual(openai.data.map((m) => m.id));
    const one = await client.models.retrieve('qwx3.7-plus');
    expect(one).toMatchObject({ type: 'model', id: 'qwx3.7-plus', display_name: 'qwx3.7-plus' });
  });

  it('OpenAI SDK: the OpenAI list shape', async () => {
    const list = await openaiClient(t.h, t.token).models.list();
    expect(list.data[0]).toMatchObject({ object: 'model', created: 1_767_225_600 });
  });
});

describe('legacy billing dashboards', () => {
  for (const prefix of ['', '/v1']) {
    it(`${prefix || '/'}dashboard/billing/subscription: the quota in units, the expiry in seconds`, async () => {
      const r = await t.h.fetch(`${prefix}/dashboard/billing/subscription`, { token: limited.token });
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({
        object: 'billing_subscription',
        has_payment_method: true,
        soft_limit_usd: 2.5,
        hard_limit_usd: 2.5,
        system_hard_limit_usd: 2.5,
        access_until: 1_893_456_000,
      });
    });

    it(`${prefix || '/'}dashboard/billing/usage: the spend in hundredths of a unit, per day and model`, async () => {
      const spent = Number(
        (await t.h.store.db.selectFrom('tokens').select('spent').where('id', '=', limited.id).executeTakeFirstOrThrow())
          .spent,
      );
      expect(spent).toBeGreaterThan(0);
      const today = new Date().toISOString().slice(0, 10);
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      const r = await t.h.fetch(`${prefix}/dashboard/billing/usage?start_date=${today}&end_date=${tomorrow}`, {
        token: limited.token,
      });
      expect(r.status).toBe(200);
      const u = (await r.json()) as {
        object: string;
        total_usage: number;
        daily_costs: Array<{ timestamp: number; line_items: Array<{ name: string; cost: number }> }>;
      };
      expect(u.object).toBe('list');
      expect(u.total_usage).toBeCloseTo(spent / 10_000, 9);
      expect(u.daily_costs).toEqual([
        {
          timestamp: Date.parse(`${today}T00:00:00Z`) / 1000,
          line_items: [{ name: 'qwx3.7-plus', cost: u.total_usage }],
        },
      ]);
      // Without dates: everything spent; a day before the charge: nothing.
      const all = (await (await t.h.fetch(`${prefix}/dashboard/billing/usage`, { token: limited.token })).json()) as {
        total_usage: number;
      };
      expect(all.total_usage).toBeCloseTo(spent / 10_000, 9);
      const before = await t.h.fetch(`${prefix}/dashboard/billing/usage?start_date=2020-01-01&end_date=2020-01-02`, {
        token: limited.token,
      });
      expect(((await before.json()) as { total_usage: number }).total_usage).toBe(0);
    });
  }

  it('a token of no quota shows the unlimited figure; no token is 401; a bad date is 400', async () => {
    const r = await t.h.fetch('/dashboard/billing/subscription', { token: t.token });
    expect(((await r.json()) as { hard_limit_usd: number }).hard_limit_usd).toBe(100_000_000);
    expect((await t.h.fetch('/dashboard/billing/subscription')).status).toBe(401);
    const bad = await t.h.fetch('/v1/dashboard/billing/usage?start_date=yesterday', { token: t.token });
    expect(bad.status).toBe(400);
  });
});
