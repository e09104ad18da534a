// The bodies of customer accounts (POST /admin/accounts, PATCH /admin/accounts/{id}): checked by
// core/admin/accounts.ts and shown by the OpenAPI document. Unknown fields are refused.
import { Type } from '@sinclair/typebox';
import { bodyCheck } from './check.ts';
import { budgets, int, micro, nullable } from './fields.ts';

export const MAX_ACCOUNT_WEIGHT = 1000;

const fields = {
  name: Type.String({ maxLength: 200 }),
  quota: nullable(micro(), 'micro-units shared by every token of the account; null = unlimited'),
  budgets: budgets(
    "Budgets that reset each calendar period (in the account's time_zone, else UTC; weeks from Monday): at most one per period. A call that does not fit is refused with 429 insufficient_quota naming the estimate and what is left, x-should-retry: false, x-budget-reset (when the period starts again, ISO 8601) and x-budget-period, and Retry-After only when the budget is used up",
  ),
  price_group: nullable(
    Type.String({ maxLength: 100 }),
    'the price group its calls are charged by; null = list prices',
  ),
  time_zone: nullable(Type.String({ maxLength: 64 }), 'IANA time zone of the budget periods; null = UTC'),
  expires_at: nullable(
    int(0, Number.MAX_SAFE_INTEGER),
    'ms since the epoch: every token of the account is refused from then on',
  ),
  weight: nullable(
    int(1, MAX_ACCOUNT_WEIGHT),
    'fair-share weight when an upstream account is contended (default 1; docs/operations.md#upstream-capacity)',
  ),
};

export const ACCOUNT_FIELDS = Object.keys(fields);

export const createAccountBody = bodyCheck(
  Type.Object(
    {
      name: fields.name,
      quota: Type.Optional(fields.quota),
      budgets: Type.Optional(fields.budgets),
      price_group: Type.Optional(fields.price_group),
      time_zone: Type.Optional(fields.time_zone),
      expires_at: Type.Optional(fields.expires_at),
      weight: Type.Optional(fields.weight),
    },
    { additionalProperties: false },
  ),
);

/** An edit: null removes a value. */
export const accountPatchBody = bodyCheck(Type.Partial(Type.Object(fields), { additionalProperties: false }));
