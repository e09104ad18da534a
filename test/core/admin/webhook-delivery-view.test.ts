// What a delivery says fired it, read from the payload each event carries: the holder and threshold of the spending
// events, the token of a reaped hold, the failure-rate threshold, nothing for a breaker or a test event.
import { describe, expect, it } from 'vitest';
import { deliverySubject } from '../../../src/core/admin/webhook-delivery-view.ts';

const payload = (data: Record<string, unknown>) => ({ type: 'x', timestamp: '2026-12-01T00:00:00Z', data });

describe('deliverySubject', () => {
  it('names the holder and the threshold from the event data', () => {
    const holder = { kind: 'account', id: 'acct_1', name: 'Acme' };
    expect(deliverySubject('spend.threshold', payload({ holder, threshold: 100 }))).toEqual({
      holder,
      threshold: '100 %',
    });
    expect(deliverySubject('limit.reached', payload({ holder: { kind: 'token', id: 'tok_1', name: null } }))).toEqual({
      holder: { kind: 'token', id: 'tok_1', name: null },
      threshold: 'limit reached',
    });
    expect(deliverySubject('hold.reaped', payload({ token_id: 'tok_2', amount: 5 }))).toEqual({
      holder: { kind: 'token', id: 'tok_2', name: null },
      threshold: null,
    });
    expect(deliverySubject('tasks.failure_rate', payload({ threshold_percent: 20, failure_percent: 35 }))).toEqual({
      holder: null,
      threshold: '20 % of tasks failed',
    });
  });

  it('gives nulls for events without a holder and for payloads of another shape', () => {
    const none = { holder: null, threshold: null };
    expect(deliverySubject('breaker.opened', payload({ channel: { id: 'ch_1', name: 'a' } }))).toEqual(none);
    expect(deliverySubject('webhook.test', payload({ webhook_id: 'wh_1' }))).toEqual(none);
    expect(deliverySubject('spend.threshold', payload({ holder: { kind: 'robot', id: 1 } }))).toEqual(none);
    expect(deliverySubject('spend.threshold', null)).toEqual(none);
  });
});
