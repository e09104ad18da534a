// The Stripe webhook on the store of the test run, signed as Stripe signs (the `stripe` package's test header): a paid
// Checkout Session credits the account its client_reference_id names once, however often the event is delivered,
// and each delivery shows on its payment event; a bad or missing signature, an unknown account or currency, an
// unpaid session credit nothing and are recorded with their outcome.
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import type { BErr } from '../support/error-shapes.ts';
import { useHarness } from '../support/harness.ts';

const SECRET = 'whsec_test_0123456789abcdefghijklmnop';
const t = useHarness({
  env: { TOLLWAY_STRIPE_WEBHOOK_SECRET: SECRET, TOLLWAY_STRIPE_CREDIT_RATES: 'usd=0.01,eur=0.02' },
});

let seq = 0;
function sessionEvent(
  accountId: string | null,
  over: Record<string, unknown> = {},
  type = 'checkout.session.completed',
) {
  seq += 1;
  return JSON.stringify({
    id: `evt_test_${Date.now()}_${seq}`,
    object: 'event',
    type,
    data: {
      object: {
        id: `cs_test_${seq}`,
        object: 'checkout.session',
        client_reference_id: accountId,
        amount_total: 1234,
        currency: 'usd',
        payment_status: 'paid',
        ...over,
      },
    },
  });
}

const deliver = (payload: string, secret = SECRET, signature?: string) =>
  fetch(`${t.h.url}/webhooks/stripe`, {
    method: 'POST',
    headers: {
      // As Stripe sends it.
      'content-type': 'application/json; charset=utf-8',
      'stripe-signature': signature ?? Stripe.webhooks.generateTestHeaderString({ payload, secret }),
    },
    body: payload,
  });

async function account(): Promise<string> {
  const r = await t.h.admin('/admin/accounts', { method: 'POST', json: { name: `payer-${seq}`, quota: 0 } });
  return ((await r.json()) as { id: string }).id;
}

const quotaOf = async (id: string) =>
  Number(
    (await t.h.store.db.selectFrom('accounts').select('quota').where('id', '=', id).executeTakeFirstOrThrow()).quota,
  );

const creditLines = async (accountId: string) =>
  t.h.store.db
    .selectFrom('ledger')
    .select('amount')
    .where('kind', '=', 'credit')
    .where('token_id', '=', accountId)
    .execute();

async function paymentEvent(eventId: string) {
  const page = (await (await t.h.admin('/admin/credit/payments?limit=200')).json()) as {
    data: Array<{ event_id: string | null; outcome: string; deliveries: number; amount: number | null }>;
  };
  return page.data.find((e) => e.event_id === eventId);
}

const idOf = (payload: string) => (JSON.parse(payload) as { id: string }).id;

describe('POST /webhooks/stripe', { timeout: 120_000 }, () => {
  it('credits a paid session once, replayed 5 times (and 5 times at once)', async () => {
    const acc = await account();
    const payload = sessionEvent(acc);
    const outcomes: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await deliver(payload);
      expect(r.status).toBe(200);
      outcomes.push(((await r.json()) as { outcome: string }).outcome);
    }
    expect(outcomes).toEqual(['credited', 'repeated', 'repeated', 'repeated', 'repeated']);
    // usd=0.01: a cent buys 0.01 units = 10,000 micro-units.
    expect(await quotaOf(acc)).toBe(1234 * 10_000);
    expect(await creditLines(acc)).toHaveLength(1);
    expect(await paymentEvent(idOf(payload))).toMatchObject({ outcome: 'credited', deliveries: 5, amount: 12_340_000 });

    const acc2 = await account();
    const p2 = sessionEvent(acc2, { currency: 'eur', amount_total: 500 });
    const rs = await Promise.all(Array.from({ length: 5 }, () => deliver(p2)));
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await quotaOf(acc2)).toBe(500 * 20_000);
    expect(await creditLines(acc2)).toHaveLength(1);
    const audit = (await (await t.h.admin(`/admin/audit?action=credit.payment&target=${acc2}`)).json()) as {
      data: unknown[];
    };
    expect(audit.data).toMatchObject([{ actor: 'stripe', detail: { event_id: idOf(p2), amount: 10_000_000 } }]);
  });

  it('credits nothing for a bad or missing signature, and records it', async () => {
    const acc = await account();
    const payload = sessionEvent(acc);
    const bad = await deliver(payload, 'whsec_not_the_endpoint_secret_000000');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as BErr).error.code).toBe('invalid_request');
    const none = await deliver(payload, SECRET, '');
    expect(none.status).toBe(400);
    // Signed for another body: the payload was changed on the way.
    const signed = Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET });
    const changed = payload.replace('1234', '999999');
    expect((await deliver(changed, SECRET, signed)).status).toBe(400);
    expect(await quotaOf(acc)).toBe(0);
    expect(await creditLines(acc)).toHaveLength(0);
    expect(await paymentEvent(idOf(payload))).toBeUndefined();
    const rows = await t.h.store.db
      .selectFrom('payment_events')
      .select('outcome')
      .where('outcome', '=', 'bad_signature')
      .execute();
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(t.h.logs.some((l) => l.includes('its signature did not verify'))).toBe(true);
  });

  it('records what credits nothing: unknown account or currency, unpaid, other events', async () => {
    const acc = await account();
    const cases: Array<[string, string]> = [
      [sessionEvent('acc_does_not_exist'), 'unknown_account'],
      [sessionEvent(null), 'unknown_account'],
      [sessionEvent(acc, { currency: 'jpy' }), 'unknown_currency'],
      [sessionEvent(acc, { payment_status: 'unpaid' }), 'awaiting_payment'],
    ];
    for (const [payload, outcome] of cases) {
      const r = await deliver(payload);
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ outcome });
      expect(await paymentEvent(idOf(payload))).toMatchObject({ outcome, deliveries: 1 });
    }
    // Signed, but no session in it.
    const empty = JSON.stringify({
      id: `evt_empty_${Date.now()}`,
      object: 'event',
      type: 'checkout.session.completed',
    });
    expect(await (await deliver(empty)).json()).toMatchObject({ outcome: 'ignored' });
    const other = sessionEvent(acc, {}, 'customer.created');
    expect(await (await deliver(other)).json()).toMatchObject({ outcome: 'ignored' });
    expect(await quotaOf(acc)).toBe(0);
    expect(t.h.logs.some((l) => l.includes('acc_does_not_exist') && l.includes('credited nothing'))).toBe(true);
    // An async payment method's session is credited when its payment succeeds.
    const later = sessionEvent(acc, {}, 'checkout.session.async_payment_succeeded');
    expect(await (await deliver(later)).json()).toMatchObject({ outcome: 'credited' });
    expect(await quotaOf(acc)).toBe(12_340_000);
  });

  it('refuses a body that is not JSON, crediting nothing', async () => {
    const r = await fetch(`${t.h.url}/webhooks/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'stripe-signature': 't=1,v1=00' },
      body: 'hello',
    });
    expect(r.status).toBe(415);
    expect(((await r.json()) as BErr).error.code).toBe('unsupported_content_type');
  });
});
