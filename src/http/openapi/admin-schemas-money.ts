// OpenAPI schemas of money in the admin API: micro-units, prices and their history, bill lines.
import { arr, int, microSum, obj, type Schema, str } from './schema.ts';

export const micro = (description = 'integer micro-units (1 unit = 1,000,000)'): Schema => ({
  type: 'integer',
  minimum: 0,
  description,
});
export const tokenPriceTier = obj(
  {
    maxInputTokens: {
      type: ['integer', 'null'],
      description: "inclusive bound on the request's total input tokens; null = no bound",
    },
    inputPer1k: micro(),
    outputPer1k: micro(),
    cachedInputPer1k: micro(),
    cacheCreationPer1k: micro(),
  },
  ['maxInputTokens', 'inputPer1k', 'outputPer1k'],
);
export const price: Schema = {
  description: "A price, all amounts integer micro-units; an override keeps the model's unit",
  oneOf: [
    obj({ unit: { const: 'tokens' }, tiers: arr(tokenPriceTier) }, ['unit', 'tiers']),
    obj({ unit: { const: 'image' }, perImage: micro() }, ['unit', 'perImage']),
    obj(
      {
        unit: { const: 'video-second' },
        perSecond: obj({ '720p': micro(), '1080p': micro() }, ['720p', '1080p']),
        basis: { type: 'string', enum: ['output', 'input+output'] },
      },
      ['unit', 'perSecond'],
    ),
    obj({ unit: { const: 'video-mode-second' }, perSecond: obj({ std: micro(), pro: micro() }, ['std', 'pro']) }, [
      'unit',
      'perSecond',
    ]),
  ],
};
export const priceView = obj(
  {
    model: str(),
    kind: str(),
    owned_by: str(),
    price,
    default_resolution: str('video models'),
    snapshots: { type: 'boolean', description: 'dated snapshots resolve to this model' },
    aliases: arr(str()),
    hidden: { type: 'boolean' },
    price_overridden: { type: 'boolean', description: 'an admin override is stored' },
  },
  ['model', 'kind', 'price', 'price_overridden'],
);
export const priceChange = obj(
  {
    id: int(),
    model: str(),
    action: {
      type: 'string',
      enum: ['set', 'reset'],
      description: 'set: an override stored; reset: dropped, back to the file or built-in price',
    },
    old_price: { oneOf: [price, { type: 'null' }], description: 'the effective price before the change' },
    new_price: { oneOf: [price, { type: 'null' }], description: 'the effective price after it' },
    actor: str('as the audit line names it: admin, cli or console:<session id>'),
    request_id: { type: ['string', 'null'] },
    at: int('ms since the epoch'),
  },
  ['id', 'model', 'action', 'old_price', 'new_price', 'actor', 'request_id', 'at'],
);
export const billLine = obj(
  {
    token_id: str(),
    token_name: { type: ['string', 'null'] },
    period: { type: 'string', enum: ['day', 'month'] },
    period_start: str('UTC label: YYYY-MM-DD or YYYY-MM'),
    entries: int(),
    amount: microSum(),
    amount_units: str('the amount as an exact decimal string of units'),
    models: { type: 'object', additionalProperties: obj({ entries: int(), amount: microSum(), amount_units: str() }) },
    credits: obj({
      entries: int(),
      amount: microSum('top-ups credited in the period: added to the quota, not part of amount'),
    }),
  },
  ['token_id', 'period', 'period_start', 'entries', 'amount', 'amount_units'],
);
export const billModelLine = obj(
  {
    token_id: str(),
    token_name: { type: ['string', 'null'] },
    period: { type: 'string', enum: ['day', 'month'] },
    period_start: str('UTC label: YYYY-MM-DD or YYYY-MM'),
    kind: {
      type: 'string',
      enum: ['charges', 'credit'],
      description: 'credit: the top-ups of the token in the period (no model)',
    },
    model: { type: ['string', 'null'] },
    entries: int(),
    amount: microSum(),
    amount_units: str(),
  },
  ['token_id', 'period', 'period_start', 'kind', 'model', 'entries', 'amount', 'amount_units'],
);
export const billAccountLine = obj(
  {
    account_id: {
      type: ['string', 'null'],
      description: 'null: the lines that counted against no account (tokens of no account, top-ups of token quotas)',
    },
    account_name: { type: ['string', 'null'] },
    period: { type: 'string', enum: ['day', 'month'] },
    period_start: str('UTC label: YYYY-MM-DD or YYYY-MM'),
    entries: int(),
    amount: microSum(),
    amount_units: str(),
    list_amount: microSum('the same charges at list (catalogue) price'),
    models: { type: 'object', additionalProperties: obj({ entries: int(), amount: microSum(), amount_units: str() }) },
    credits: obj({ entries: int(), amount: microSum("the account's top-ups in the period") }),
  },
  ['account_id', 'period', 'period_start', 'entries', 'amount', 'amount_units'],
);
