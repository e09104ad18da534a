// OpenAPI paths of credit that arrives by itself (core/credit/): redemption code batches and their redemptions
// (admin), a customer's redemption (/v1/credit/redeem), the Stripe webhook and its payment events.
import { createBatchBody } from '../../core/admin/bodies/credit.ts';
import { cursorParam, limitParam } from './admin-schemas.ts';
import { admin, arr, familyB, int, jsonBody, obj, ok, pathParam, str, type Operation, type Schema } from './schema.ts';

const nullable = (type: string, description?: string): Schema => ({
  type: [type, 'null'],
  ...(description ? { description } : {}),
});
const holderKind: Schema = { type: ['string', 'null'], enum: ['token', 'account', null] };

const batchFields = {
  id: str('cb_…'),
  name: nullable('string'),
  amount: int('micro-units each code credits'),
  count: int('codes in the batch'),
  redeemed: int('codes redeemed so far'),
  expires_at: int('ms: the codes are refused from then on'),
  revoked_at: nullable('integer', 'ms'),
  state: { type: 'string', enum: ['active', 'expired', 'revoked'] },
  created_by: str('the audit actor that created it'),
  created_at: int('ms'),
};
const batchView = obj({ object: { const: 'credit.batch' }, ...batchFields }, ['object', ...Object.keys(batchFields)]);
const withProps = (base: Schema, props: Record<string, Schema>, required: string[]): Schema => ({
  ...base,
  properties: { ...(base.properties as Record<string, Schema>), ...props },
  required: [...(base.required as string[]), ...required],
});
const batchCreated = withProps(batchView, { codes: arr(str('twc_ + 24 base62 characters')) }, ['codes']);
const codeView = obj(
  {
    id: str('cc_…'),
    hint: str('twc_…abcd: the last characters; the code itself is never shown again'),
    state: { type: 'string', enum: ['unused', 'redeemed', 'expired', 'revoked'] },
    redeemed_at: nullable('integer', 'ms'),
    holder_kind: holderKind,
    holder_id: nullable('string', 'the token or account credited'),
    token_id: nullable('string', 'the token that redeemed it'),
  },
  ['id', 'hint', 'state', 'redeemed_at', 'holder_kind', 'holder_id', 'token_id'],
);
const batchDetail = withProps(batchView, { codes: arr(codeView) }, ['codes']);
const redemptionRow = obj(
  {
    object: { const: 'credit.redemption' },
    code_id: str(),
    hint: str(),
    batch_id: str(),
    batch_name: nullable('string'),
    amount: int('micro-units'),
    holder_kind: holderKind,
    holder_id: nullable('string'),
    token_id: nullable('string'),
    redeemed_at: int('ms'),
  },
  ['object', 'code_id', 'batch_id', 'amount', 'holder_kind', 'holder_id', 'redeemed_at'],
);
const OUTCOMES = [
  'credited',
  'unknown_account',
  'unknown_currency',
  'awaiting_payment',
  'refused',
  'ignored',
  'bad_signature',
];
const paymentEvent = obj(
  {
    object: { const: 'payment.event' },
    id: str('pay_…'),
    provider: { const: 'stripe' },
    event_id: nullable('string', "Stripe's evt_… (null when the signature did not verify)"),
    type: nullable('string'),
    account_id: nullable('string', 'client_reference_id'),
    amount_total: nullable('integer', 'minor units (cents)'),
    currency: nullable('string'),
    amount: nullable('integer', 'micro-units credited (or that would have been)'),
    outcome: { type: 'string', enum: OUTCOMES },
    detail: nullable('string', 'why nothing was credited'),
    deliveries: int('how many times Stripe delivered the event'),
    created_at: int('ms'),
    updated_at: int('ms'),
  },
  ['object', 'id', 'provider', 'event_id', 'outcome', 'deliveries', 'created_at'],
);
const page = (item: Schema) =>
  obj({ data: arr(item), has_more: { type: 'boolean' }, next_cursor: str('present when has_more') }, [
    'data',
    'has_more',
  ]);
const id = [pathParam('id', 'Batch id (cb_…)')];
const paged = { parameters: [limitParam, cursorParam] };

export function creditPaths(): Record<string, Record<string, Operation>> {
  return {
    '/admin/credit/batches': {
      post: admin(
        'Create a batch of single-use redemption codes (role billing): the codes are in this answer only (kept hashed)',
        {
          requestBody: jsonBody(createBatchBody.schema),
        },
        batchCreated,
        '201',
      ),
      get: admin('Code batches, newest first (role viewer)', paged, page(batchView)),
    },
    '/admin/credit/batches/{id}': {
      get: admin("One batch with each code's redemption state (role viewer)", { parameters: id }, batchDetail),
      delete: admin(
        'Revoke a batch (role billing): its unredeemed codes are refused from then on; credits made stay',
        { parameters: id },
        batchView,
      ),
    },
    '/admin/credit/redemptions': {
      get: admin('Redeemed codes, newest redemption first (role viewer)', paged, page(redemptionRow)),
    },
    '/admin/credit/payments': {
      get: admin(
        'Payment events (Stripe deliveries) with their outcome, newest first (role viewer)',
        paged,
        page(paymentEvent),
      ),
    },
    '/v1/credit/redeem': {
      post: familyB(
        "Redeem a code: its credit goes to the token's account, or to the token when it has none, once (a retry by the same token gets the same answer; anyone else credit_code_used). Refusals: not_found (unknown code), credit_code_used (409), credit_code_expired (410: expired or revoked batch), conflict (the holder has no quota to add to)",
        { requestBody: jsonBody(obj({ code: str('twc_…') }, ['code'])) },
        ok(
          obj(
            {
              object: { const: 'credit.redemption' },
              code_id: str(),
              amount: int('micro-units credited'),
              holder_kind: { type: 'string', enum: ['token', 'account'] },
              holder_id: str(),
              redeemed_at: int('ms'),
            },
            ['object', 'code_id', 'amount', 'holder_kind', 'holder_id', 'redeemed_at'],
          ),
        ),
      ),
    },
    '/webhooks/stripe': {
      post: {
        tags: ['payments'],
        summary:
          "Stripe event deliveries (no bearer: the Stripe-Signature header over the raw body, TOLLWAY_STRIPE_WEBHOOK_SECRET). checkout.session.completed (payment_status paid) and checkout.session.async_payment_succeeded credit the account named by client_reference_id with amount_total × the currency's TOLLWAY_STRIPE_CREDIT_RATES rate, once per event id; 404 while the secret is unset",
        security: [],
        requestBody: jsonBody(obj({ id: str('evt_…'), type: str(), data: obj({ object: obj() }) })),
        responses: {
          '200': ok(
            obj(
              {
                received: { const: true },
                event_id: str(),
                outcome: { type: 'string', enum: [...OUTCOMES, 'repeated'] },
              },
              ['received', 'event_id', 'outcome'],
            ),
          ),
          '400': { $ref: '#/components/responses/FamilyBError' },
          '404': { $ref: '#/components/responses/FamilyBError' },
        },
      },
    },
  };
}
