// The body of a batch of credit codes (POST /admin/credit/batches): checked by core/credit/batches.ts, shown by the
// OpenAPI document. Unknown fields are refused.
import { Type } from '@sinclair/typebox';
import { bodyCheck } from './check.ts';
import { int, micro, nullable } from './fields.ts';

/** The most codes one batch makes. */
export const MAX_BATCH_CODES = 1000;

export const createBatchBody = bodyCheck(
  Type.Object(
    {
      name: Type.Optional(nullable(Type.String({ maxLength: 200 }))),
      count: int(1, MAX_BATCH_CODES, 'codes in the batch'),
      amount: micro('micro-units each code credits', 1),
      expires_at: int(0, Number.MAX_SAFE_INTEGER, 'when the codes stop working: ms since the epoch, in the future'),
    },
    { additionalProperties: false },
  ),
);
