// POST /admin/webhooks/{id}/test and …/deliveries/{delivery}/redeliver against a receiver that verifies signatures:
// the test event is signed as real events are and recorded as a delivery; a redelivery sends the same bytes under the
// same webhook-id as one more attempt; unknown ids are 404 and a pending delivery or disabled webhook 409, in the
// admin error shape. The deliveries list names who and what fired each one (holder, threshold) from its payload.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { startVerifyingReceiver, type VerifyingReceiver } from '../../support/verifying-receiver.ts';

interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_try_at: number | null;
  holder: { kind: string; id: string; name: string | null } | null;
  threshold: string | null;
  payload: { type: string; data: Record<string, unknown> };
}
interface AdminError {
  error: { code: string; message: string; request_id: string };
}

describe('admin webhooks: test and redeliver', { timeout: 60_000 }, () => {
  // No background rounds: each attempt is made by the request under test or by hand.
  const t = useHarness({
    env: {
      TOLLWAY_ALLOW_PRIVATE_NETWORK: '1',
      TOLLWAY_ALERT_CHECK_MS: '3600000',
      TOLLWAY_WEBHOOK_TICK_MS: '600000',
    },
  });
  let rx: VerifyingReceiver;
  let hookId = '';
  beforeAll(async () => {
    rx = await startVerifyingReceiver();
    const r = await t.h.admin('/admin/webhooks', {
      method: 'POST',
      json: { url: rx.url, events: ['spend.threshold', 'limit.reached', 'breaker.opened'] },
    });
    const made = (await r.json()) as { id: string; secret: string };
    hookId = made.id;
    rx.secret = made.secret;
  });
  afterAll(() => rx.close());
  const post = (path: string) => t.h.admin(`/admin/webhooks/${path}`, { method: 'POST' });
  const deliveries = async () =>
    ((await (await t.h.admin(`/admin/webhooks/${hookId}/deliveries`)).json()) as { data: Delivery[] }).data;

  it('sends a signed test event the receiver verifies, recorded as a delivery', async () => {
    const r = await post(`${hookId}/test`);
    expect(r.status).toBe(200);
    const d = (await r.json()) as Delivery;
    expect(d).toMatchObject({ event_type: 'webhook.test', state: 'delivered', attempts: 1, last_status: 200 });
    expect(d.last_error).toBeNull();
    expect(rx.hits).toHaveLength(1);
    expect(rx.hits[0]!.verified).toMatchObject({ type: 'webhook.test', data: { webhook_id: hookId } });
    expect(rx.hits[0]!.headers['webhook-id']).toBe(d.id);
    expect((await deliveries()).map((x) => [x.id, x.state, x.holder, x.threshold])).toEqual([
      [d.id, 'delivered', null, null],
    ]);
  });

  it('reports a receiver that refuses the signature: the status, the error and the retry', async () => {
    const real = rx.secret;
    rx.secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    try {
      const d = (await (await post(`${hookId}/test`)).json()) as Delivery;
      expect(d).toMatchObject({ state: 'pending', attempts: 1, last_status: 401, last_error: 'HTTP 401' });
      expect(d.next_try_at).toBeGreaterThan(Date.now());
      expect(rx.hits.at(-1)!.verified).toBeNull();
    } finally {
      rx.secret = real;
    }
  });

  it('names the holder and threshold of each delivery, and redelivers one byte for byte', async () => {
    const tok = (await (
      await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'nightly-batch' } })
    ).json()) as { id: string };
    const deps = t.h.gw.deps;
    await deps.alerts.spendCrossed({
      holderKind: 'token',
      holderId: tok.id,
      limitKind: 'quota',
      periodKey: '1000',
      spent: 850,
      limit: 1000,
    });
    await deps.alerts.emit('limit.reached', { holder: { kind: 'account', id: 'acct_x', name: 'Acme' } });
    const hitsBefore = rx.hits.length;
    await t.h.gw.alerts.dispatcher.deliverDue();
    // The two events, and the refused test's retry (its back-off has not passed: not due).
    expect(rx.hits.length - hitsBefore).toBe(2);
    const list = await deliveries();
    const spend = list.find((x) => x.event_type === 'spend.threshold')!;
    expect(spend).toMatchObject({
      state: 'delivered',
      holder: { kind: 'token', id: tok.id, name: 'nightly-batch' },
      threshold: '80 %',
    });
    expect(list.find((x) => x.event_type === 'limit.reached')).toMatchObject({
      holder: { kind: 'account', id: 'acct_x', name: 'Acme' },
      threshold: 'limit reached',
    });
    const first = rx.hits.find((h) => h.headers['webhook-id'] === spend.id)!;
    const r = await post(`${hookId}/deliveries/${spend.id}/redeliver`);
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ id: spend.id, event_id: spend.event_id, state: 'delivered', attempts: 2 });
    const again = rx.hits.at(-1)!;
    expect(again.headers['webhook-id']).toBe(spend.id);
    expect(again.body).toBe(first.body);
    expect(again.verified).toMatchObject({ type: 'spend.threshold' });
    const audit = (await (await t.h.admin('/admin/audit?action=webhook.redeliver')).json()) as { data: unknown[] };
    expect(audit.data).toHaveLength(1);
  });

  it('refuses unknown ids (404), a pending delivery and a disabled webhook (409), in the admin error shape', async () => {
    const expectError = async (r: Response, status: number, code: string, message: RegExp) => {
      expect(r.status).toBe(status);
      const body = (await r.json()) as AdminError;
      expect(body.error).toMatchObject({ code, request_id: r.headers.get('x-gateway-request-id') });
      expect(body.error.message).toMatch(message);
    };
    await expectError(await post('wh_nope/test'), 404, 'not_found', /No webhook wh_nope/);
    await expectError(await post('wh_nope/deliveries/msg_x/redeliver'), 404, 'not_found', /No webhook/);
    await expectError(
      await post(`${hookId}/deliveries/msg_nope/redeliver`),
      404,
      'not_found',
      /No delivery msg_nope of webhook/,
    );
    // A delivery of another webhook is not this one's.
    const other = (await (
      await t.h.admin('/admin/webhooks', { method: 'POST', json: { url: rx.url, events: ['hold.reaped'] } })
    ).json()) as { id: string };
    const done0 = (await deliveries()).find((x) => x.state === 'delivered')!;
    await expectError(await post(`${other.id}/deliveries/${done0.id}/redeliver`), 404, 'not_found', /No delivery/);
    const pending = (await deliveries()).find((x) => x.state === 'pending')!;
    await expectError(await post(`${hookId}/deliveries/${pending.id}/redeliver`), 409, 'conflict', /still pending/);
    await t.h.admin(`/admin/webhooks/${hookId}`, { method: 'PATCH', json: { enabled: false } });
    const hits = rx.hits.length;
    await expectError(await post(`${hookId}/test`), 409, 'conflict', /is disabled/);
    const done = (await deliveries()).find((x) => x.state === 'delivered')!;
    await expectError(await post(`${hookId}/deliveries/${done.id}/redeliver`), 409, 'conflict', /is disabled/);
    expect(rx.hits.length).toBe(hits);
  });
});
