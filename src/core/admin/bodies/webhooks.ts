// The bodies of the operator's alert webhooks (POST /admin/webhooks, PATCH /admin/webhooks/{id}): checked by
// core/admin/webhooks.ts and shown by the OpenAPI document, the same objects.
import { Type } from '@sinclair/typebox';
import { ALERT_EVENTS } from '../../../alerts/events.ts';
import { bodyCheck } from './check.ts';

export const WEBHOOK_URL_MAX = 2000;

export const webhookEvents = Type.Array(Type.Union(ALERT_EVENTS.map((e) => Type.Literal(e))), {
  minItems: 1,
  description:
    "spend.threshold: a token's or account's spending crossed 50, 80 or 100 % of its quota or budget period (each once per holder, limit, period and threshold, across instances; only the highest when several were passed at once); limit.reached: calls of a holder are refused by a quota or budget (once per holder, limit and period); the data of both: holder {kind, id, name}, limit {kind, budget_period, period_start, period_end (ISO 8601), amount}, message; breaker.opened / breaker.closed: a channel's circuit breaker (announced by the first instance whose breaker made the transition); tasks.failure_rate: the failed share of tasks finished in the last TOLLWAY_ALERT_TASK_FAILURE_WINDOW_MS reached TOLLWAY_ALERT_TASK_FAILURE_PERCENT (at most once per window); hold.reaped: a reservation or task hold left open was released by the reaper",
});

const fields = {
  url: Type.String({
    maxLength: WEBHOOK_URL_MAX,
    description:
      'http(s) URL without credentials; loopback and private addresses are refused unless TOLLWAY_ALLOW_PRIVATE_NETWORK is set (also when a name resolves to one, at delivery)',
  }),
  events: webhookEvents,
  enabled: Type.Boolean({ default: true }),
  description: Type.Union([Type.String({ maxLength: 500 }), Type.Null()]),
};

/** Unknown fields are refused: an edit that silently ignored a misspelt field would look applied. */
export const createWebhookBody = bodyCheck(
  Type.Object(
    {
      url: fields.url,
      events: fields.events,
      enabled: Type.Optional(fields.enabled),
      description: Type.Optional(fields.description),
    },
    { additionalProperties: false },
  ),
);

export const webhookPatchBody = bodyCheck(Type.Partial(Type.Object(fields), { additionalProperties: false }));
