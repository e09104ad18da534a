// The token view's balance fields: its own quota's remainder, its account's balance, and what it may still spend.
import { obj, str, type Schema } from './schema.ts';

const microOrNull = (description: string): Schema => ({ type: ['integer', 'null'], description });

export const tokenBalanceFields: Record<string, Schema> = {
  remaining: microOrNull("what the token's own quota leaves (micro-units); null: no quota of its own"),
  account: {
    ...obj({
      id: str(),
      name: str(),
      quota: microOrNull("the account's quota (micro-units); null: none"),
      spent: { type: 'integer' },
      held: { type: 'integer' },
      remaining: microOrNull("what the account's quota leaves; null: no quota"),
    }),
    type: ['object', 'null'],
    description: "the token's account's balance (its quota limits the token too); null: no account",
  },
  effective_remaining: microOrNull(
    "what the token may still spend: the least of what its own quota and its account's quota leave; null when neither has a quota (budgets: GET /admin/tokens/{id}/usage)",
  ),
};
