// The body of a new account member (POST /admin/accounts/{id}/members): checked by core/portal/members.ts, shown by
// the OpenAPI document. Unknown fields are refused.
import { Type } from '@sinclair/typebox';
import { bodyCheck } from './check.ts';
import { nullable } from './fields.ts';

export const DEFAULT_MEMBER_KEY_DAYS = 90;
export const MAX_MEMBER_KEY_DAYS = 3650;

export const issueMemberBody = bodyCheck(
  Type.Object(
    {
      name: Type.String({ maxLength: 200 }),
      email: Type.String({ maxLength: 320 }),
      expires_in_days: Type.Optional(
        nullable(
          Type.Integer({ minimum: 1, maximum: MAX_MEMBER_KEY_DAYS, default: DEFAULT_MEMBER_KEY_DAYS }),
          'Days until the key expires',
        ),
      ),
    },
    { additionalProperties: false },
  ),
);
