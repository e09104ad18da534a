// The attack of a short store outage: 20 streams of an account token (price group ×2) end while the store refuses
// every connection, so no reservation can be settled. Their charges wait in the queue and are written once the store
// is back — each on the account and at the group's price, as the calls were priced, never as an account-less line at
// list price. On the store TOLLWAY_TEST_DIALECT names; the outage is the real store's connections refused.
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, useHarness, type Harness } from '../support/harness.ts';
import { storeOutage } from '../support/store-outage.ts';

const t = useHarness();
const outage = storeOutage();
afterAll(() => outage.end());

async function adminPost(
  h: Harness,
  method: string,
  path: string,
  json: unknown,
): Promise<{ id: string; token: string }> {
  const r = await h.fetch(path, { method, token: ADMIN_KEY, json });
  expect(r.status).toBeLessThan(300);
  return (await r.json()) as { id: string; token: string };
}

async function until(what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error(`never: ${what}`);
}

describe('charges recorded while the store is away', () => {
  it('keep their account and price group: 20 streams through an outage are charged the group price, on the account', async () => {
    const { h } = t;
    await adminPost(h, 'PUT', '/admin/price-groups/double', { multiplier: 2 });
    const acc = await adminPost(h, 'POST', '/admin/accounts', { name: 'outage', price_group: 'double' });
    const tok = await adminPost(h, 'POST', '/admin/tokens', { name: 'outage', account_id: acc.id });
    const streams = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const r = await h.fetch('/v1/chat/completions', {
          method: 'POST',
          token: tok.token,
          json: {
            model: 'qwx3.7-plus',
            stream: true,
            messages: [{ role: 'user', content: `stream ${i} sim-fault:trickle:60` }],
          },
        });
        expect(r.status).toBe(200);
        const reader = r.body!.getReader();
        await reader.read(); // the call is under way: its reservation placed
        return { rid: r.headers.get('x-gateway-request-id')!, reader };
      }),
    );
    outage.begin();
    // Every stream runs to its end while the store is away.
    await Promise.all(
      streams.map(async (s) => {
        for (;;) if ((await s.reader.read()).done) return;
      }),
    );
    const rids = new Set(streams.map((s) => s.rid));
    const meter = h.gw.deps.meter;
    await until('all 20 charges queued', () => meter.unwritten().filter((r) => rids.has(r.key)).length === 20);
    expect(outage.refused).toBeGreaterThan(0);
    outage.end();
    await until('the queue written', () => meter.unwritten().length === 0);
    await meter.flush();

    const ledger = await h.store.db
      .selectFrom('ledger')
      .select(['request_id', 'amount', 'list_amount', 'account_id', 'price_group'])
      .where('token_id', '=', tok.id)
      .execute();
    expect(ledger).toHaveLength(20);
    for (const l of ledger) {
      expect(rids.has(l.request_id!)).toBe(true);
      expect([l.account_id, l.price_group]).toEqual([acc.id, 'double']);
      expect(Number(l.amount)).toBe(2 * Number(l.list_amount));
    }
    const total = ledger.reduce((a, l) => a + Number(l.amount), 0);
    const token = await h.store.db
      .selectFrom('tokens')
      .select('spent')
      .where('id', '=', tok.id)
      .executeTakeFirstOrThrow();
    const account = await h.store.db
      .selectFrom('accounts')
      .select('spent')
      .where('id', '=', acc.id)
      .executeTakeFirstOrThrow();
    expect([Number(token.spent), Number(account.spent)]).toEqual([total, total]);
  });
});
