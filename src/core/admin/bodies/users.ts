// The bodies of staff people and their keys (POST/PATCH /admin/users…, keys and their rotation): checked by
// core/staff/people.ts and the key rotation route, shown by the OpenAPI document. Unknown fields are refused.
import { Type } from '@sinclair/typebox';
import { DEFAULT_KEY_DAYS, MAX_KEY_DAYS } from '../../staff/keys.ts';
import { ROLES } from '../../staff/roles.ts';
import { bodyCheck } from './check.ts';
import { nullable } from './fields.ts';

const closed = { additionalProperties: false } as const;
const nameField = (what: string) => Type.String({ maxLength: 200, description: what });
const role = Type.Union(
  ROLES.map((r) => Type.Literal(r)),
  {
    description:
      'owner: everything; admin: everything but users and the upstream keys (channel creation and edits); operator: tokens, accounts, channel health, tasks, reads; billing: accounts, prices, price groups, credit (top-ups), reads; viewer: reads only, never a secret',
  },
);
const days = nullable(
  Type.Integer({ minimum: 1, maximum: MAX_KEY_DAYS, default: DEFAULT_KEY_DAYS }),
  'Days until the key expires',
);

export const createPersonBody = bodyCheck(
  Type.Object(
    {
      name: nameField("the person's name"),
      email: Type.String({ maxLength: 320, description: 'an e-mail address; unique' }),
      role,
      key_name: Type.Optional(nullable(nameField('a name for the first key'))),
      expires_in_days: Type.Optional(days),
    },
    closed,
  ),
);

export const personPatchBody = bodyCheck(
  Type.Object(
    {
      name: Type.Optional(nameField("the person's name")),
      role: Type.Optional(role),
      disabled: Type.Optional(Type.Boolean()),
    },
    closed,
  ),
);

export const newKeyBody = bodyCheck(
  Type.Object(
    { name: Type.Optional(nullable(nameField('a name for the key'))), expires_in_days: Type.Optional(days) },
    closed,
  ),
);

export const rotateKeyBody = bodyCheck(Type.Object({ expires_in_days: Type.Optional(days) }, closed));
