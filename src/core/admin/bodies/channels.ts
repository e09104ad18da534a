// The bodies of channels (POST /admin/channels, PATCH /admin/channels/{id}): checked by core/admin/channels.ts and
// channel-changes.ts, shown by the OpenAPI document, the same objects. What JSON Schema cannot say stays in those
// readers, after the check: which key fields a kind has (and that they are set), the base URL's scheme and region,
// the account's characters, a non-blank name.
import { Type } from '@sinclair/typebox';
import { CHANNEL_KINDS, UPSTREAMS } from '../../../adapters/upstreams.ts';
import { MAX_UNIT_PRICE } from '../../../pricing/price-fields.ts';
import { bodyCheck } from './check.ts';
import { int, nullable } from './fields.ts';

/** Every upstream's key fields (api_key, access_key, secret_key), each described for the kinds that carry it. */
export const CHANNEL_KEY_FIELDS = [...new Set(UPSTREAMS.flatMap((u) => u.keyFields.map((f) => f.field)))];
const keyField = (field: string) =>
  Type.String({
    maxLength: 500,
    description: `write-only; a key of ${UPSTREAMS.filter((u) => u.keyFields.some((f) => f.field === field))
      .map((u) => u.kind)
      .join(', ')} channels (required there on create)`,
  });
const keyFields = Object.fromEntries(CHANNEL_KEY_FIELDS.map((f) => [f, Type.Optional(keyField(f))]));

const limit = Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }));

const fields = {
  name: Type.String({ maxLength: 200 }),
  base_url: Type.String({ description: "absolute http(s) URL without credentials; absent: the kind's default" }),
  models: nullable(
    Type.Array(Type.String(), { maxItems: 1000 }),
    "the catalogue's models it serves (each served by its kind); null = every model of its kind",
  ),
  priority: int(-1000, 1000),
  weight: int(1, 1000),
  account: nullable(
    Type.String({ maxLength: 100 }),
    'the upstream account the key belongs to (letters, digits and . _ - : @): channels naming one account share its limits',
  ),
  task_slots: nullable(int(1, 10_000), 'parallel tasks per model version the account allows; null = learnt'),
  model_limits: nullable(
    Type.Record(
      Type.String(),
      Type.Object({ rpm: limit, tpm: limit, concurrency: limit }, { additionalProperties: false, minProperties: 1 }),
    ),
    'the upstream account\'s limits per public model ("*": each model the channel serves): rpm, tpm, concurrency (positive integers, any subset); channels naming one account share them, the smallest stated value applies; null clears (docs/operations.md#upstream-capacity)',
  ),
  cost: nullable(
    Type.Object(
      {
        per_unit: Type.Optional(int(0, MAX_UNIT_PRICE)),
        per_second: Type.Optional(int(0, MAX_UNIT_PRICE)),
        price_ratio: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1000 })),
        tolerance: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
      },
      { additionalProperties: false },
    ),
    'what the upstream charges us on this channel, integer micro-units: per unit of its own deduction (Kling final_unit_deduction) or per second of video; each task charge records its upstream cost on its ledger line (bills show the margin); reconcile flags a task whose list amount over that cost strays from price_ratio by more than tolerance (default 1 and 0.1); null clears',
  ),
};

/** A refusal inside `cost` names the field in it (`cost.per_unit`), as its reader always has. */
const dotted = ['cost'];

/** Unknown fields are refused: a misspelt `model` for `models` must not make a channel that serves every model. */
export const createChannelBody = bodyCheck(
  Type.Object(
    {
      name: fields.name,
      kind: Type.Union(CHANNEL_KINDS.map((k) => Type.Literal(k))),
      base_url: Type.Optional(fields.base_url),
      ...keyFields,
      models: Type.Optional(fields.models),
      priority: Type.Optional(fields.priority),
      weight: Type.Optional(fields.weight),
      account: Type.Optional(fields.account),
      task_slots: Type.Optional(fields.task_slots),
      model_limits: Type.Optional(fields.model_limits),
      cost: Type.Optional(fields.cost),
    },
    { additionalProperties: false },
  ),
  { dotted },
);

/** An edit: any subset; the kind cannot change (refused by name before this check). */
export const channelPatchBody = bodyCheck(
  Type.Object(
    {
      name: Type.Optional(fields.name),
      models: Type.Optional(fields.models),
      priority: Type.Optional(fields.priority),
      weight: Type.Optional(fields.weight),
      enabled: Type.Optional(Type.Boolean()),
      base_url: Type.Optional(fields.base_url),
      ...keyFields,
      account: Type.Optional(fields.account),
      task_slots: Type.Optional(fields.task_slots),
      model_limits: Type.Optional(fields.model_limits),
      cost: Type.Optional(fields.cost),
    },
    { additionalProperties: false },
  ),
  { dotted },
);
