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
/** The one video shape (docs/api.md, Metering and billing): any video model may take it. */
export const videoPrice: Schema = obj(
  {
    unit: { const: 'video' },
    perSecond: {
      type: 'object',
      description:
        'per output second by tier: a resolution (480p, 720p, 1080p, 2k, 4k), a mode (std, pro) or "<mode>/<resolution>"; looked up as mode/resolution, then resolution, then mode, then the nearest resolution named',
      additionalProperties: micro(),
      minProperties: 1,
    },
    soundPerSecond: micro('surcharge per output second with sound on'),
    voicePerSecond: micro('surcharge per output second with a named voice (voice_list)'),
    inputPerSecond: micro('per second of input video'),
    basis: {
      type: 'string',
      enum: ['output', 'input+output'],
      description: 'input+output: input seconds cost the tier rate too',
    },
    perShot: micro('per shot of a multi-shot task'),
    perRun: micro('once per task'),
  },
  ['unit', 'perSecond'],
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
    videoPrice,
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
/** Present where some of the charges recorded their upstream cost (their channel states one: channels `cost`). */
const costFields = {
  costed_entries: int('charges with a recorded upstream cost'),
  upstream_cost: microSum('what those charges cost upstream'),
  margin: microSum('their amount less their upstream cost'),
};
/** A bill line's period, in the bill's time zone (`time_zone`: the account's, as its budgets). */
const billDates = {
  period: { type: 'string', enum: ['day', 'week', 'month'] },
  period_start: str("label in the bill's time zone: YYYY-MM-DD (a day; a week: its Monday) or YYYY-MM (a month)"),
  first_day: str("the period's first day, ISO 8601 date (YYYY-MM-DD) in the bill's time zone"),
  last_day: str("the period's last day (included), ISO 8601 date in the bill's time zone"),
};
const modelFigures = obj({ entries: int(), amount: microSum(), amount_units: str(), ...costFields });

export const billLine = obj(
  {
    token_id: str(),
    token_name: { type: ['string', 'null'] },
    ...billDates,
    entries: int(),
    amount: microSum(),
    amount_units: str('the amount as an exact decimal string of units'),
    models: { type: 'object', additionalProperties: modelFigures },
    credits: obj({
      entries: int(),
      amount: microSum('top-ups credited in the period: added to the quota, not part of amount'),
    }),
    ...costFields,
  },
  ['token_id', 'period', 'period_start', 'entries', 'amount', 'amount_units'],
);
export const billModelLine = obj(
  {
    token_id: str(),
    token_name: { type: ['string', 'null'] },
    ...billDates,
    kind: {
      type: 'string',
      enum: ['charges', 'credit'],
      description: 'credit: the top-ups of the token in the period (no model)',
    },
    model: { type: ['string', 'null'] },
    entries: int(),
    amount: microSum(),
    amount_units: str(),
    ...costFields,
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
    ...billDates,
    entries: int(),
    amount: microSum(),
    amount_units: str(),
    list_amount: microSum('the same charges at list (catalogue) price'),
    models: { type: 'object', additionalProperties: modelFigures },
    credits: obj({ entries: int(), amount: microSum("the account's top-ups in the period") }),
    ...costFields,
  },
  ['account_id', 'period', 'period_start', 'entries', 'amount', 'amount_units'],
);
