// OpenAPI paths of the operator's alert webhooks and their deliveries (routes/admin/webhooks.ts).
import { ALERT_EVENTS, TEST_EVENT } from '../../alerts/events.ts';
import { arr, int, jsonBody, obj, pathParam, str, admin, type Operation, type Schema } from './schema.ts';
import { cursorParam, limitParam } from './admin-schemas.ts';
import { createWebhookBody, webhookEvents, webhookPatchBody } from '../../core/admin/bodies/webhooks.ts';

const events = webhookEvents as Schema;
const webhookView = obj(
  {
    id: str('wh_…'),
    url: str(),
    events,
    enabled: { type: 'boolean' },
    description: { type: ['string', 'null'] },
    created_at: int('ms'),
    updated_at: int('ms'),
  },
  ['id', 'url', 'events', 'enabled', 'description', 'created_at', 'updated_at'],
);
const webhookCreated: Schema = {
  ...webhookView,
  properties: {
    ...(webhookView.properties as Record<string, Schema>),
    secret: str('whsec_…: the Standard Webhooks secret deliveries are signed with; shown only here'),
  },
  required: [...(webhookView.required as string[]), 'secret'],
};
const delivery = obj(
  {
    id: str('msg_…: the webhook-id header, the same on every attempt (dedupe on it)'),
    event_id: str("evt_…: the event (shared by every webhook's delivery of it)"),
    event_type: {
      type: 'string',
      enum: [...ALERT_EVENTS, TEST_EVENT],
      description: `${TEST_EVENT}: a test event sent by POST /admin/webhooks/{id}/test`,
    },
    state: {
      type: 'string',
      enum: ['pending', 'delivered', 'failed'],
      description:
        'failed: attempts ran out (TOLLWAY_WEBHOOK_MAX_ATTEMPTS), the target was refused, or the webhook was disabled',
    },
    attempts: int(),
    last_status: { type: ['integer', 'null'], description: "the receiver's HTTP status at the last attempt" },
    last_error: { type: ['string', 'null'] },
    next_try_at: { type: ['integer', 'null'], description: 'ms; while pending' },
    delivered_at: { type: ['integer', 'null'], description: 'ms' },
    created_at: int('ms'),
    holder: {
      ...obj({ kind: { type: 'string', enum: ['token', 'account'] }, id: str(), name: { type: ['string', 'null'] } }, [
        'kind',
        'id',
        'name',
      ]),
      type: ['object', 'null'],
      description:
        'who the event is about, from its payload (spend.threshold, limit.reached: data.holder; hold.reaped: the token); null for the others',
    },
    threshold: {
      type: ['string', 'null'],
      description:
        "what was crossed, from its payload: spend.threshold '80 %', limit.reached 'limit reached', tasks.failure_rate '20 % of tasks failed'; null for the others",
    },
    payload: obj({ type: str(), timestamp: str('ISO 8601'), data: obj({ event_id: str() }) }, [
      'type',
      'timestamp',
      'data',
    ]),
  },
  [
    'id',
    'event_id',
    'event_type',
    'state',
    'attempts',
    'last_status',
    'last_error',
    'next_try_at',
    'delivered_at',
    'created_at',
    'holder',
    'threshold',
    'payload',
  ],
);
const page = (item: Schema) =>
  obj({ data: arr(item), has_more: { type: 'boolean' }, next_cursor: str('present when has_more') }, [
    'data',
    'has_more',
  ]);
const id = [pathParam('id', 'Webhook id (wh_…)')];
const sentNote =
  'Answered once the attempt is made (within TOLLWAY_WEBHOOK_TIMEOUT_MS), with the delivery as it stands: delivered, or pending with last_status and last_error and its retry (next_try_at) under the usual back-off, or failed. 409 when the webhook is disabled';

export function adminWebhookPaths(): Record<string, Record<string, Operation>> {
  return {
    '/admin/webhooks': {
      post: admin(
        'Create an alert webhook: deliveries are POSTed as Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature over the body), retried with back-off (TOLLWAY_WEBHOOK_BACKOFF_MS doubling, TOLLWAY_WEBHOOK_MAX_ATTEMPTS)',
        { requestBody: jsonBody(createWebhookBody.schema) },
        webhookCreated,
        '201',
      ),
      get: admin('Alert webhooks, newest first', { parameters: [limitParam, cursorParam] }, page(webhookView)),
    },
    '/admin/webhooks/{id}': {
      get: admin('One webhook (never its secret)', { parameters: id }, webhookView),
      patch: admin(
        'Edit a webhook (unknown fields are refused); a disabled webhook gets no new events and its pending deliveries are not sent',
        { parameters: id, requestBody: jsonBody(webhookPatchBody.schema) },
        webhookView,
      ),
      delete: admin('Delete a webhook and its deliveries', { parameters: id }, webhookView),
    },
    '/admin/webhooks/{id}/deliveries': {
      get: admin(
        "The webhook's deliveries with their outcome, newest first",
        { parameters: [...id, limitParam, cursorParam] },
        page(delivery),
      ),
    },
    '/admin/webhooks/{id}/test': {
      post: admin(
        `Send a signed ${TEST_EVENT} event (data: event_id, webhook_id, message) to this webhook: the same signing and delivery as real events, recorded as one of its deliveries. ${sentNote}`,
        { parameters: id },
        delivery,
      ),
    },
    '/admin/webhooks/{id}/deliveries/{delivery}/redeliver': {
      post: admin(
        `Send a delivery's exact payload again, as one more attempt of the same delivery (same webhook-id and event, attempts + 1; a failed attempt is retried only while TOLLWAY_WEBHOOK_MAX_ATTEMPTS allows). 404: no such webhook or delivery of it; 409 also while the delivery is pending. ${sentNote}`,
        { parameters: [...id, pathParam('delivery', 'Delivery id (msg_…)')] },
        delivery,
      ),
    },
  };
}
