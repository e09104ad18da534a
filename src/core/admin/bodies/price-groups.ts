// The body of a price group (PUT /admin/price-groups/{name}): checked by core/admin/price-groups.ts, shown by the
// OpenAPI document. Each price's own shape and rules (its unit kept, amounts in range) are the pricing module's
// (pricing/price-validation.ts, shared with the catalogue file), checked after this schema.
import { Type } from '@sinclair/typebox';
import { bodyCheck } from './check.ts';

export const priceGroupBody = bodyCheck(
  Type.Object(
    {
      // Absent means list price; null is no multiplier at all, and is refused rather than read as 1.
      multiplier: Type.Optional(
        Type.Number({ minimum: 0, maximum: 1000, default: 1, description: 'of list prices, up to 6 decimals' }),
      ),
      prices: Type.Optional(
        Type.Record(
          Type.String(),
          Type.Object({ unit: Type.String() }, { description: 'a price, in the shapes of PUT /admin/prices/{model}' }),
          { description: "prices set outright per model (the model's unit kept)" },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);
