// OpenAPI paths of customer accounts and price groups (admin API), and the schemas they share with tokens.
import { accountPatchBody, createAccountBody } from '../../core/admin/bodies/accounts.ts';
import { priceGroupBody } from '../../core/admin/bodies/price-groups.ts';
import { topUpBody } from '../../core/admin/bodies/tokens.ts';
import {
  str,
  int,
  arr,
  obj,
  jsonBody,
  ledgerCountFields,
  pathParam,
  query,
  admin,
  type Operation,
  type Schema,
} from './schema.ts';
import { cursorParam, limitParam, listPage, micro, microSum, price, timeParam } from './admin-schemas.ts';

const nullable = (type: string, description: string): Schema => ({ type: [type, 'null'], description });
export const budgets: Schema = {
  type: 'array',
  maxItems: 3,
  description:
    "Budgets that reset each calendar period (in the account's time_zone, else UTC; weeks from Monday): at most one per period. A call that does not fit is refused with 429 insufficient_quota naming the estimate and what is left, x-should-retry: false, x-budget-reset (when the period starts again, ISO 8601) and x-budget-period, and Retry-After only when the budget is used up",
  items: obj(
    { period: { type: 'string', enum: ['day', 'week', 'month'] }, limit: micro('micro-units a period may spend') },
    ['period', 'limit'],
  ),
};
export const budgetStatus = obj({
  period: str(),
  limit: micro(),
  period_start: int('ms'),
  resets_at: int('ms: the next period starts'),
  spent: micro(),
  held: micro('held by running calls and tasks'),
  remaining: micro(),
});
const accountFields = {
  name: str(),
  quota: nullable('integer', 'micro-units shared by every token of the account; null = unlimited'),
  budgets,
  price_group: nullable('string', 'the price group its calls are charged by; null = list prices'),
  time_zone: nullable('string', 'IANA time zone of the budget periods; null = UTC'),
  expires_at: nullable('integer', 'ms since the epoch: every token of the account is refused from then on'),
  weight: {
    type: 'integer',
    minimum: 1,
    maximum: 1000,
    description:
      'fair-share weight when an upstream account is contended (default 1; docs/operations.md#upstream-capacity)',
  },
};
export const accountView = obj({
  object: { const: 'account' },
  id: str(),
  ...accountFields,
  spent: micro(),
  held: micro(),
  remaining: nullable('integer', 'quota - spent - held; null when unlimited'),
  revoked_at: nullable('integer', 'ms: every token of the account is refused'),
  created_at: int('ms'),
  updated_at: int('ms'),
});
const priceGroupView = obj({
  object: { const: 'price_group' },
  name: str(),
  multiplier: { type: 'number', description: 'of list prices, for models without their own price here' },
  prices: { type: 'object', additionalProperties: price },
  created_at: int('ms'),
  updated_at: int('ms'),
});
const accountId = [pathParam('id', 'Account id (acc_…)')];

export function accountPaths(): Record<string, Record<string, Operation>> {
  return {
    '/admin/accounts': {
      post: admin(
        'Create a customer account (unknown fields are refused; a name another account has: 409 conflict, names are unique)',
        { requestBody: jsonBody(createAccountBody.schema) },
        accountView,
        '201',
      ),
      get: admin(
        'List accounts, oldest first, a page at a time',
        {
          parameters: [
            query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, 'Accounts per page'),
            query('cursor', str(), 'next_cursor of the previous page'),
          ],
        },
        obj({ data: arr(accountView), has_more: { type: 'boolean' }, next_cursor: str('present when has_more') }),
      ),
    },
    '/admin/accounts/{id}': {
      get: admin('One account', { parameters: accountId }, accountView),
      patch: admin(
        "Edit an account (applies to its tokens' next calls on every instance; null removes a value)",
        {
          parameters: accountId,
          requestBody: jsonBody(accountPatchBody.schema),
        },
        accountView,
      ),
      delete: admin(
        'Revoke an account: every token of it is refused at once, on every instance',
        { parameters: accountId },
        accountView,
      ),
    },
    '/admin/accounts/{id}/topup': {
      post: admin(
        "Add to an account's quota: one ledger line of kind credit (token_id and account_id name the account)",
        {
          parameters: accountId,
          requestBody: jsonBody(topUpBody.schema),
        },
        {
          ...accountView,
          properties: {
            ...(accountView.properties as Schema),
            topup: obj({ amount: micro(), credited: { type: 'boolean' } }),
          },
        },
      ),
    },
    '/admin/accounts/{id}/usage': {
      get: admin(
        "An account's balance, budgets in their current period, tokens, and charges per model for a period (default: the current UTC month) at the price charged and at list price",
        {
          parameters: [...accountId, timeParam('since'), timeParam('until')],
        },
        obj({
          object: { const: 'account_usage' },
          account: accountView,
          unit: str(),
          budgets: arr(budgetStatus),
          tokens: arr(str(), "ids of the account's tokens"),
          period: obj({ since: int(), until: int() }),
          usage: obj({
            data: arr(
              obj({
                model: str(),
                ...ledgerCountFields(),
                amount: microSum(),
                amount_units: str(),
                list_amount: microSum('at list price'),
              }),
            ),
            total: obj({ ...ledgerCountFields(), amount: microSum(), amount_units: str(), list_amount: microSum() }),
            credited: microSum(),
          }),
        }),
      ),
    },
    '/admin/price-groups': {
      get: admin(
        'List price groups by name, a page at a time (unknown parameters are refused)',
        { parameters: [limitParam, cursorParam] },
        listPage(priceGroupView),
      ),
    },
    '/admin/price-groups/{name}': {
      get: admin('One price group', { parameters: [pathParam('name', 'Price group name')] }, priceGroupView),
      put: admin(
        'Create (201) or replace (200) a price group: applies to calls from then on; ledger lines keep what they were charged',
        {
          parameters: [pathParam('name', 'Price group name: letters, digits, ., _ or -')],
          requestBody: jsonBody(priceGroupBody.schema),
        },
        priceGroupView,
      ),
    },
  };
}
