// The body of a model's price (PUT /admin/prices/{model}): a price, or {"price": …}. This schema is the shape per
// unit, shown by the OpenAPI document and checked first by core/admin/prices.ts; the pricing module's validator
// (pricing/price-validation.ts, shared with the catalogue file) then keeps the model's unit and orders token tiers,
// and names the field of a price the shape refuses (`price.perImage must be …`), as the catalogue file's readers see.
import { Type } from '@sinclair/typebox';
import { MAX_UNIT_PRICE } from '../../../pricing/price-fields.ts';
import { bodyCheck } from './check.ts';
import { int } from './fields.ts';

const micro = (description?: string) => int(0, MAX_UNIT_PRICE, description ?? 'integer micro-units');
const basis = Type.Union([Type.Literal('output'), Type.Literal('input+output')], {
  description: "input+output: input seconds cost the tier rate too; absent on a video-second price: the model's kept",
});
const closed = { additionalProperties: false } as const;

const tier = Type.Object(
  {
    maxInputTokens: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: "inclusive bound on the request's total input tokens, rising tier to tier; null = no bound (last)",
    }),
    inputPer1k: micro(),
    outputPer1k: micro(),
    cachedInputPer1k: Type.Optional(micro()),
    cacheCreationPer1k: Type.Optional(micro()),
  },
  closed,
);

/** One price, per unit; an override keeps the model's unit (or moves a video model to or from the one video shape). */
export const priceSchema = Type.Union(
  [
    Type.Object({ unit: Type.Literal('tokens'), tiers: Type.Array(tier, { minItems: 1 }) }, closed),
    Type.Object({ unit: Type.Literal('image'), perImage: micro() }, closed),
    Type.Object(
      {
        unit: Type.Literal('video-second'),
        perSecond: Type.Object({ '720p': micro(), '1080p': micro() }, closed),
        basis: Type.Optional(basis),
      },
      closed,
    ),
    Type.Object(
      { unit: Type.Literal('video-mode-second'), perSecond: Type.Object({ std: micro(), pro: micro() }, closed) },
      closed,
    ),
    Type.Object(
      {
        unit: Type.Literal('video'),
        perSecond: Type.Record(Type.String(), micro(), {
          minProperties: 1,
          description:
            'per output second by tier: a resolution (480p, 720p, 1080p, 2k, 4k), a mode (std, pro) or "<mode>/<resolution>"; looked up as mode/resolution, then resolution, then mode, then the nearest resolution named',
        }),
        soundPerSecond: Type.Optional(micro('surcharge per output second with sound on')),
        voicePerSecond: Type.Optional(micro('surcharge per output second with a named voice (voice_list)')),
        inputPerSecond: Type.Optional(micro('per second of input video')),
        basis: Type.Optional(basis),
        perShot: Type.Optional(micro('per shot of a multi-shot task')),
        perRun: Type.Optional(micro('once per task')),
      },
      closed,
    ),
  ],
  { description: "A price, all amounts integer micro-units; an override keeps the model's unit" },
);

export const priceBody = bodyCheck(
  Type.Union([priceSchema, Type.Object({ price: priceSchema }, closed)], {
    description: 'the price object, or {"price": {...}}',
  }),
);
