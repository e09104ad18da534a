// An operator's own sends to a webhook: a signed test event, and the redelivery of one delivery's exact payload. Both
// go through the alert deliveries' own attempt (alerts/attempt.ts: the same signing, address rule and recording), so
// a test that passes proves the receiver verifies what real events carry. A redelivery is one more attempt of the
// same delivery row (its `webhook-id`, payload and event unchanged, `attempts` one higher): a failed one retries with
// back-off only while TOLLWAY_WEBHOOK_MAX_ATTEMPTS allows.
import { newId } from '../../auth/token-secret.ts';
import { LEASE_MS, type ClaimedDelivery } from '../../alerts/attempt.ts';
import { eventBody, TEST_EVENT } from '../../alerts/events.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { DeliveryRecord, WebhookRecord } from '../../store/repos/webhooks.ts';
import { audit, type Actor } from './deps.ts';
import { getWebhook, publicDelivery, type WebhookDeps } from './webhooks.ts';

/** Sends one claimed attempt now and records its outcome (the gateway gives alerts/attempt.ts's sendClaimedNow). */
export type SendNow = (d: ClaimedDelivery) => Promise<void>;

function enabledHook(w: WebhookRecord, what: string): void {
  if (!w.enabled) throw new GatewayError('conflict', `Webhook ${w.id} is disabled: enable it before ${what}`);
}

async function sentRow(deps: WebhookDeps, webhookId: string, id: string) {
  return publicDelivery((await deps.repos.webhooks.delivery(webhookId, id))!);
}

/** A `webhook.test` event to this webhook alone, recorded as a delivery; its outcome once attempted. */
export async function testWebhook(deps: WebhookDeps, by: Actor, webhookId: string, send: SendNow) {
  const w = await getWebhook(deps, webhookId);
  enabledHook(w, 'testing it');
  const at = Date.now();
  const eventId = newId('evt');
  const payload = eventBody({
    id: eventId,
    type: TEST_EVENT,
    at,
    data: { webhook_id: w.id, message: `A test event from Tollway to webhook ${w.id}; no action is needed.` },
  });
  const d = { id: newId('msg'), webhookId: w.id, eventId, eventType: TEST_EVENT, payload };
  await deps.repos.webhooks.insertClaimed(d, at + LEASE_MS, at);
  await audit(deps, by, 'webhook.test', w.id, { delivery_id: d.id });
  await send({ id: d.id, webhookId: w.id, payload, attempt: 1 });
  return sentRow(deps, w.id, d.id);
}

/** The delivery's exact payload sent again, as one more attempt of it; its outcome once attempted. */
export async function redeliver(deps: WebhookDeps, by: Actor, webhookId: string, deliveryId: string, send: SendNow) {
  const w = await getWebhook(deps, webhookId);
  const d: DeliveryRecord | null = await deps.repos.webhooks.delivery(webhookId, deliveryId);
  if (!d) throw new GatewayError('not_found', `No delivery ${deliveryId} of webhook ${webhookId}`);
  enabledHook(w, 'redelivering to it');
  if (d.state === 'pending')
    throw new GatewayError(
      'conflict',
      `Delivery ${deliveryId} is still pending (being sent or waiting for its retry): redeliver it once it is delivered or failed`,
    );
  const attempt = await deps.repos.webhooks.reclaim(d, Date.now() + LEASE_MS);
  if (attempt === null)
    throw new GatewayError('conflict', `Delivery ${deliveryId} changed meanwhile (another redelivery?): try again`);
  await audit(deps, by, 'webhook.redeliver', w.id, { delivery_id: d.id, attempt });
  await send({ id: d.id, webhookId: w.id, payload: d.payload, attempt });
  return sentRow(deps, w.id, d.id);
}
