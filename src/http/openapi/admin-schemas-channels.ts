// Schemas of the admin API's channels: a channel's view, its edit and its check, and the parts they share.
import { capacityView } from './admin-schemas-capacity.ts';
import { str, int, arr, obj, type Schema } from './schema.ts';
import { CHANNEL_KINDS, UPSTREAMS } from '../../adapters/upstreams.ts';

const masked = (description: string): Schema => ({ type: ['string', 'null'], description });

/** A channel's kind: one of the upstreams (adapters/upstreams.ts). */
export const channelKind: Schema = { type: 'string', enum: [...CHANNEL_KINDS] };

/** One kind of GET /admin/channel-kinds (core/admin/channel-kinds.ts). */
export const channelKindView = obj(
  {
    kind: channelKind,
    default_base_url: str('used when a new channel names none'),
    key_fields: arr(
      obj(
        {
          field: str('its name in a create or edit body'),
          secret: { type: 'boolean', description: 'shown back only as set or not' },
        },
        ['field', 'secret'],
      ),
    ),
    models: arr(str(), "the catalogue's models it serves"),
  },
  ['kind', 'default_base_url', 'key_fields', 'models'],
);

/** Every upstream's key fields (api_key, access_key, …), each described for the upstream that carries it. */
export function keyFieldSchemas(describe: (kind: string, setOnly: boolean) => Schema): Record<string, Schema> {
  return Object.fromEntries(
    UPSTREAMS.flatMap((u) => u.keyFields.map((f) => [f.field, describe(u.kind, f.setOnly === true)])),
  );
}
export const breakerView = obj(
  {
    state: { type: 'string', enum: ['closed', 'open', 'half-open'] },
    consecutive_failures: int(),
    open_until: { type: ['integer', 'null'], description: 'ms; while open' },
    recent_failures: arr(obj({ at: int('ms'), code: str('error code') }), 'the last five, oldest first'),
  },
  ['state', 'consecutive_failures', 'open_until', 'recent_failures'],
);
/** A channel's model_limits: the upstream account's limits per public model ("*": every model it serves). */
export const modelLimits = {
  type: ['object', 'null'],
  description:
    'the upstream account\'s limits per public model ("*": each model the channel serves): rpm, tpm, concurrency (positive integers, any subset); channels naming one account share them, the smallest stated value applies; null clears (docs/operations.md#upstream-capacity)',
  additionalProperties: {
    type: 'object',
    properties: {
      rpm: { type: 'integer', minimum: 1 },
      tpm: { type: 'integer', minimum: 1 },
      concurrency: { type: 'integer', minimum: 1 },
    },
    additionalProperties: false,
    minProperties: 1,
  },
};
/** A channel's stated upstream cost (pricing/upstream-cost.ts). */
export const channelCost: Schema = {
  type: ['object', 'null'],
  description:
    'what the upstream charges us on this channel, integer micro-units: per unit of its own deduction (Kling final_unit_deduction) or per second of video; each task charge records its upstream cost on its ledger line (bills show the margin); reconcile flags a task whose list amount over that cost strays from price_ratio by more than tolerance (default 1 and 0.1); null clears',
  properties: {
    per_unit: { type: 'integer', minimum: 0 },
    per_second: { type: 'integer', minimum: 0 },
    price_ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1000 },
    tolerance: { type: 'number', minimum: 0, maximum: 1 },
  },
  additionalProperties: false,
};
export const channelView = obj({
  id: str(),
  name: str(),
  kind: channelKind,
  base_url: str(),
  models: { type: ['array', 'null'], items: str() },
  status: { type: 'string', enum: ['enabled', 'disabled'] },
  priority: int(),
  weight: int(),
  account: {
    type: ['string', 'null'],
    description:
      'the upstream account the key belongs to; channels naming one account share its limits (null: the key is its own account)',
  },
  task_slots: {
    type: ['integer', 'null'],
    description: "parallel tasks per model version the account allows (null: learnt from the upstream's refusals)",
  },
  model_limits: modelLimits,
  cost: { ...channelCost, description: 'present when stated' },
  created_at: int('ms'),
  updated_at: int('ms'),
  keys: obj(
    keyFieldSchemas((kind, setOnly) =>
      masked(`${kind}: **** ${setOnly ? 'when set' : 'and the last four characters'}`),
    ),
  ),
  breaker: { ...breakerView, description: "this instance's circuit breaker for the channel" },
  capacity: {
    type: ['array', 'null'],
    description:
      "the channel's upstream account per upstream model: limits in force and where each comes from, this instance's use, calls in flight and waiting (GET /admin/channels/{id}/capacity)",
    items: capacityView,
  },
});
export const channelCheck = obj(
  {
    id: str(),
    ok: { type: 'boolean' },
    latency_ms: int(),
    error: {
      type: ['object', 'null'],
      properties: {
        code: str('catalogue code, e.g. upstream_auth_error'),
        message: str("a fixed text; never the upstream's words"),
      },
    },
    upstream_request_id: { type: ['string', 'null'] },
  },
  ['id', 'ok', 'latency_ms', 'error'],
);
