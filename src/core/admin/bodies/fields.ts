// Field schemas several admin bodies share. `nullable`: the readers took null as "absent" (or, in an edit, "remove
// the value"), so the schemas take it too.
import { Type, type TSchema } from '@sinclair/typebox';
import { BUDGET_PERIODS } from '../../../metering/periods.ts';

export const nullable = <T extends TSchema>(t: T, description?: string) =>
  Type.Union([t, Type.Null()], description ? { description } : {});

export const int = (minimum: number, maximum: number, description?: string) =>
  Type.Integer({ minimum, maximum, ...(description ? { description } : {}) });

export const micro = (description = 'integer micro-units (1 unit = 1,000,000)', minimum = 0) =>
  int(minimum, Number.MAX_SAFE_INTEGER, description);

/** A holder's budgets: at most one per period (that rule, not JSON Schema's, is core/admin/budgets.ts's). */
export const budgets = (description: string) =>
  nullable(
    Type.Array(
      Type.Object(
        {
          period: Type.Union(BUDGET_PERIODS.map((p) => Type.Literal(p))),
          limit: micro('micro-units spent per period at most'),
        },
        { additionalProperties: false },
      ),
      { maxItems: BUDGET_PERIODS.length },
    ),
    `${description}; null or [] = none`,
  );

/** The grace a rotated secret keeps, in ms. */
export const graceMs = (max: number, description: string) => int(0, max, description);
