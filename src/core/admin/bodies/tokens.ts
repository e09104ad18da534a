// The bodies of the token routes (POST /admin/tokens, PATCH /admin/tokens/{id}, rotate, callback-secret rotate):
// checked by core/admin/tokens.ts, token-changes.ts and callback-secrets.ts, shown by the OpenAPI document. Unknown
// fields are refused: a misspelt limit (`model`, `quota_micro`) must not make a token without it.
import { Type } from '@sinclair/typebox';
import { MAX_CALLBACK_GRACE_MS } from '../../../config/config.ts';
import { bodyCheck } from './check.ts';
import { budgets, graceMs, int, micro, nullable } from './fields.ts';

/** The largest tokens-per-minute limit accepted (an integer column on both stores). */
export const MAX_TPM = 1_000_000_000;
/** The longest grace a rotated secret may keep: a week. */
export const MAX_GRACE_MS = 7 * 86_400_000;

const closed = { additionalProperties: false } as const;
const name = Type.String({ maxLength: 200 });
const models = Type.Array(Type.String(), { maxItems: 1000 });
const expiresAt = int(0, Number.MAX_SAFE_INTEGER, 'ms since the epoch, in the future');
const rpm = int(1, 1_000_000, 'requests per minute');
const tpm = int(1, MAX_TPM, 'tokens (input + output) per minute, counted when a call settles');
const concurrency = int(1, 100_000, 'calls in flight');
const accountId = Type.String({
  maxLength: 64,
  description: 'the account that owns the token: its quota, budgets and price group apply too',
});

export const createTokenBody = bodyCheck(
  Type.Object(
    {
      name,
      models: Type.Optional(nullable(models, 'allow-list of public model names; absent = every model')),
      quota: Type.Optional(nullable(micro('micro-units; absent = unlimited'))),
      expires_at: Type.Optional(nullable(expiresAt)),
      rpm_limit: Type.Optional(nullable(rpm)),
      tpm_limit: Type.Optional(nullable(tpm)),
      concurrency_limit: Type.Optional(nullable(concurrency)),
      account_id: Type.Optional(nullable(accountId)),
      budgets: Type.Optional(budgets("the token's own budgets")),
    },
    closed,
  ),
);

/** An edit: `null` removes a limit or the allow-list. */
export const tokenPatchBody = bodyCheck(
  Type.Object(
    {
      name: Type.Optional(name),
      models: Type.Optional(nullable(models, 'allow-list of public model names; null = every model')),
      quota: Type.Optional(nullable(micro('micro-units; null = unlimited'))),
      rpm_limit: Type.Optional(nullable(rpm, 'null = no limit')),
      tpm_limit: Type.Optional(nullable(tpm, 'null = no limit')),
      concurrency_limit: Type.Optional(nullable(concurrency, 'null = no limit')),
      expires_at: Type.Optional(nullable(expiresAt, 'null = never')),
      account_id: Type.Optional(nullable(accountId, 'null = none')),
      budgets: Type.Optional(budgets("the token's own budgets")),
    },
    closed,
  ),
);

export const topUpBody = bodyCheck(
  Type.Object(
    {
      amount: micro('micro-units', 1),
      idempotency_key: Type.Optional(
        nullable(Type.String({ maxLength: 100, description: 'a retried top-up with the same key credits once' })),
      ),
    },
    closed,
  ),
);

export const rotateTokenBody = bodyCheck(
  Type.Object({ grace_ms: Type.Optional(nullable(graceMs(MAX_GRACE_MS, 'ms; default 0'))) }, closed),
);

export const rotateCallbackSecretBody = bodyCheck(
  Type.Object(
    {
      grace_ms: Type.Optional(
        nullable(
          graceMs(
            MAX_CALLBACK_GRACE_MS,
            'how long the replaced secret keeps signing; absent = TOLLWAY_CALLBACK_SECRET_GRACE_MS (default 24 h); 0 = it stops at once',
          ),
        ),
      ),
    },
    closed,
  ),
);
