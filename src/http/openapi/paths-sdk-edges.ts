// OpenAPI paths for what SDKs and dashboards read beyond the calls: the model lists (OpenAI's and Anthropic's shape),
// the token's usage, and the legacy billing endpoints (OpenAI and new-api dashboards).
import { arr, familyB, num, obj, ok, pathParam, query, ref, str, type Operation } from './schema.ts';
import { tokenUsageView } from './schema-v1.ts';

const subscription = obj({
  object: { const: 'billing_subscription' },
  has_payment_method: { const: true },
  soft_limit_usd: num("the token's quota (else its account's) in units; 100000000 when neither has one"),
  hard_limit_usd: num('the same'),
  system_hard_limit_usd: num('the same'),
  access_until: { type: 'integer', description: "the token's expiry, unix seconds; 0: none" },
});

const usageAnswer = obj({
  object: { const: 'list' },
  total_usage: num('charges in the range, in hundredths of a unit (the dashboards read cents)'),
  daily_costs: arr(
    obj({
      timestamp: { type: 'integer', description: 'the UTC day, unix seconds' },
      line_items: arr(obj({ name: str('public model'), cost: num('hundredths of a unit') })),
    }),
  ),
});

function billing(): Record<string, Record<string, Operation>> {
  const sub = familyB(
    "Legacy billing subscription (OpenAI and new-api dashboards): the calling token's limit, in units where dollars are expected",
    {},
    ok(subscription),
  );
  const use = familyB(
    "Legacy billing usage: the calling token's charges over [start_date, end_date) (UTC days; without dates: all it spent), in hundredths of a unit where cents are expected",
    {
      parameters: [
        query('start_date', str(), 'YYYY-MM-DD, inclusive'),
        query('end_date', str(), 'YYYY-MM-DD, exclusive (at most 367 days after start_date)'),
      ],
    },
    ok(usageAnswer),
  );
  const paths: Record<string, Record<string, Operation>> = {};
  for (const prefix of ['', '/v1']) {
    paths[`${prefix}/dashboard/billing/subscription`] = { get: sub };
    paths[`${prefix}/dashboard/billing/usage`] = { get: use };
  }
  return paths;
}

/** /v1/models for a caller that sends anthropic-version: Anthropic's list shape. */
const anthropicModelList = obj({
  data: arr(obj({ type: { const: 'model' }, id: str(), display_name: str(), created_at: str('ISO 8601') })),
  has_more: { type: 'boolean' },
  first_id: { type: ['string', 'null'] },
  last_id: { type: ['string', 'null'] },
});

export function sdkEdgePaths(): Record<string, Record<string, Operation>> {
  return {
    '/v1/models': {
      get: familyB(
        "List the models visible to the token. A caller that sends anthropic-version (the @anthropic-ai/sdk) gets Anthropic's shape instead: {data: [{type: model, id, display_name, created_at}], has_more, first_id, last_id}, paged by limit (1-1000, default 20), after_id and before_id",
        {
          parameters: [
            query('limit', { type: 'integer', minimum: 1, maximum: 1000 }, "Anthropic's shape only"),
            query('after_id', str(), "Anthropic's shape only"),
            query('before_id', str(), "Anthropic's shape only"),
          ],
        },
        ok({ oneOf: [obj({ object: { const: 'list' }, data: arr(ref('Model')) }), anthropicModelList] }),
      ),
    },
    '/v1/usage': {
      get: familyB(
        "The calling token's balance and its charges per model for a period (default: the current UTC month)",
        {
          parameters: [
            query('since', str(), 'Inclusive start: ms since the epoch or an ISO 8601 date/date-time'),
            query('until', str(), 'Exclusive end (at most 367 days after since); other parameters are refused'),
          ],
        },
        ok(tokenUsageView),
      ),
    },
    '/v1/models/{model}': {
      get: familyB(
        'One visible model (model_not_found otherwise)',
        { parameters: [pathParam('model', 'Public model name')] },
        ok(ref('Model')),
      ),
    },
    ...billing(),
  };
}
