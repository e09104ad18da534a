// Family B's bodies in the OpenAPI document: usage, chat messages, videos, images and a token's balance.
import { type Schema, arr, deprecated, int, ledgerCountFields, microSum, obj, str } from './schema.ts';

export const usage = obj({
  prompt_tokens: int(),
  completion_tokens: int(),
  input_tokens: int(),
  output_tokens: int(),
  total_tokens: int(),
  prompt_tokens_details: obj({ cached_tokens: int(), cache_creation_input_tokens: int() }),
  input_tokens_details: obj({ cached_tokens: int() }),
  cache_read_input_tokens: int(),
  cache_creation_input_tokens: int(),
});
export const chatMessage = obj(
  {
    role: str(),
    content: {
      oneOf: [
        str(),
        arr(
          obj({
            type: str('text | image_url'),
            text: str(),
            image_url: obj({ url: str('http(s) URL or data:image/… URI') }),
          }),
        ),
      ],
    },
  },
  ['role', 'content'],
);
export const videoStatus: Schema = {
  type: 'string',
  enum: ['queued', 'in_progress', 'processing', 'completed', 'success', 'failed', 'cancelled'],
  description: 'clients should accept every value listed',
};
export const videoTask = obj(
  {
    id: str('equals video_id'),
    video_id: str("our video id, never the upstream's"),
    object: { const: 'video' },
    model: str(),
    status: videoStatus,
    progress: int('0–100'),
    created_at: int('unix seconds'),
    completed_at: { type: ['integer', 'null'], description: 'unix seconds' },
    expires_at: { type: ['integer', 'null'], description: 'unix seconds: when the result URL expires' },
    url: str('result URL, once completed'),
    prompt: { type: ['string', 'null'] },
    seconds: { type: ['string', 'null'] },
    size: { type: ['string', 'null'] },
    resolution: { type: ['string', 'null'] },
    error: { oneOf: [{ type: 'null' }, obj({ code: str(), message: str('sanitised') })] },
    upstream_request_id: str(),
  },
  ['id', 'video_id', 'object', 'status'],
);
export const imageResult = obj({
  created: int('unix seconds'),
  data: arr(obj({ url: str(), b64_json: str() })),
  size: str('<width>x<height>'),
  usage: obj({ images: int('images returned (and charged)') }),
});
export const imageFields = {
  model: str(),
  prompt: str(),
  size: str('<width>x<height>, 512x512 to 2048x2048 pixels; omitted or `auto` = upstream default'),
  response_format: { type: 'string', enum: ['url', 'b64_json'], default: 'url' },
  n: { type: 'integer', minimum: 1, maximum: 6, default: 1 },
  negative_prompt: str(),
  seed: { type: 'integer', minimum: 0, maximum: 2147483647 },
  watermark: { type: 'boolean', default: false },
  prompt_extend: { type: 'boolean' },
};

/** A token's balance and charges per model over a period (GET /v1/usage, GET /admin/tokens/{id}/usage). */
const BUDGET_STATUS = obj({
  period: str(),
  limit: int(),
  period_start: int('ms'),
  resets_at: int('ms'),
  spent: int(),
  held: int(),
  remaining: int(),
});
/** A holder's balance, in the budgets' words (spent, held, remaining); used/reserved are the deprecated names. */
const BALANCE = obj({
  quota: { type: ['integer', 'null'], description: 'micro-units; null = unlimited' },
  spent: int('charged to the ledger'),
  held: int('held by running calls and tasks'),
  remaining: { type: ['integer', 'null'], description: 'quota - spent - held, at least 0; null = unlimited' },
  used: deprecated(int(), 'spent'),
  reserved: deprecated(int(), 'held'),
});
export const tokenUsageView = obj(
  {
    object: { const: 'token_usage' },
    token: obj({
      id: str(),
      name: str(),
      models: { type: ['array', 'null'], items: str() },
      expires_at: { type: ['integer', 'null'] },
    }),
    unit: str(),
    balance: BALANCE,
    period: obj({ since: int('ms'), until: int('ms') }),
    usage: obj({
      data: arr(obj({ model: str(), ...ledgerCountFields(), amount: microSum('micro-units'), amount_units: str() })),
      total: obj({ ...ledgerCountFields(), amount: microSum(), amount_units: str() }),
      credited: microSum('top-ups in the period'),
    }),
    budgets: arr(BUDGET_STATUS, "the token's own budgets in their current period"),
    account: {
      oneOf: [
        obj({
          id: str(),
          name: str(),
          balance: BALANCE,
          budgets: arr(BUDGET_STATUS),
          time_zone: { type: ['string', 'null'] },
          expires_at: { type: ['integer', 'null'] },
        }),
        { type: 'null' },
      ],
      description: "the token's account: its balance and budgets; null when the token has none",
    },
  },
  ['object', 'balance', 'usage'],
);
