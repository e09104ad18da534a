// OpenAPI paths and schemas of staff people, their roles and personal keys (routes/admin/users.ts), and the audit
// line's person and key.
import { createPersonBody, newKeyBody, personPatchBody, rotateKeyBody } from '../../core/admin/bodies/users.ts';
import { ROLES } from '../../core/staff/roles.ts';
import { auditEntry } from './admin-schemas.ts';
import { admin, arr, int, jsonBody, obj, pathParam, str, type Operation, type Schema } from './schema.ts';
import { cursorParam, limitParam } from './admin-schemas.ts';

const role: Schema = {
  type: 'string',
  enum: [...ROLES],
  description:
    'owner: everything; admin: everything but users and the upstream keys (channel creation and edits); operator: tokens, accounts, channel health, tasks, reads; billing: accounts, prices, price groups, credit (top-ups), reads; viewer: reads only, never a secret',
};

export const staffKey = obj(
  {
    id: str('skey_…'),
    name: { type: ['string', 'null'] },
    prefix: str("the key's first 10 characters, to recognise it"),
    state: { type: 'string', enum: ['live', 'expired', 'revoked'] },
    expires_at: int('ms'),
    revoked_at: { type: ['integer', 'null'], description: 'ms' },
    created_at: int('ms'),
  },
  ['id', 'name', 'prefix', 'state', 'expires_at', 'revoked_at', 'created_at'],
);
const createdKey: Schema = {
  ...staffKey,
  properties: {
    ...(staffKey.properties as Record<string, Schema>),
    secret: str(
      'tws-…: the key, sent as Authorization: Bearer or at the console sign-in; shown only here, stored hashed',
    ),
  },
  required: [...((staffKey.required as string[] | undefined) ?? []), 'secret'],
};
const person = obj(
  {
    id: str('usr_…'),
    name: str(),
    email: str('lower-cased; unique'),
    role,
    disabled: { type: 'boolean' },
    disabled_at: { type: ['integer', 'null'], description: 'ms' },
    created_at: int('ms'),
    updated_at: int('ms'),
  },
  ['id', 'name', 'email', 'role', 'disabled', 'disabled_at', 'created_at', 'updated_at'],
);
const withProps = (base: Schema, props: Record<string, Schema>): Schema => ({
  ...base,
  properties: { ...(base.properties as Record<string, Schema>), ...props },
  required: [...((base.required as string[] | undefined) ?? []), ...Object.keys(props)],
});

/** An audit line with the person and the key behind it. */
export const staffAuditEntry = withProps(auditEntry, {
  person: {
    type: ['object', 'null'],
    properties: { id: str('usr_…'), name: { type: ['string', 'null'] } },
    description: 'The staff person behind the change; null: the bootstrap admin key, the CLI or the gateway itself',
  },
  key_id: {
    type: ['string', 'null'],
    description: 'The key used: a personal key id (skey_…) or admin-key (TOLLWAY_ADMIN_KEY); null: none',
  },
});

const page = (item: Schema) =>
  obj({ data: arr(item), has_more: { type: 'boolean' }, next_cursor: str('present when has_more') }, [
    'data',
    'has_more',
  ]);
const id = pathParam('id', 'Staff person id (usr_…)');
const key = pathParam('key', 'Staff key id (skey_…)');

export function staffPaths(): Record<string, Record<string, Operation>> {
  return {
    '/admin/users': {
      post: admin(
        'Add a staff person with a role; the answer carries their first personal key in `key`, its secret shown only here (409: the e-mail is taken)',
        {
          requestBody: jsonBody(createPersonBody.schema),
        },
        withProps(person, { key: createdKey }),
        '201',
      ),
      get: admin('Staff people, oldest first (owner only)', { parameters: [limitParam, cursorParam] }, page(person)),
    },
    '/admin/users/{id}': {
      get: admin(
        'A staff person and their keys (never a key itself)',
        { parameters: [id] },
        withProps(person, { keys: arr(staffKey) }),
      ),
      patch: admin(
        'Change a name, a role or disabled (applies at once, to open console sessions too); unknown fields are refused',
        {
          parameters: [id],
          requestBody: jsonBody(personPatchBody.schema),
        },
        person,
      ),
      delete: admin(
        'Disable a person: their keys and console sessions stop working; they stay for the audit log',
        { parameters: [id] },
        person,
      ),
    },
    '/admin/users/{id}/keys': {
      post: admin(
        'Another personal key (a person may hold several), shown only in this answer',
        {
          parameters: [id],
          requestBody: jsonBody(newKeyBody.schema),
        },
        createdKey,
        '201',
      ),
    },
    '/admin/users/{id}/keys/{key}/rotate': {
      post: admin(
        'Rotate a key: a new key (shown only here, same name) replaces it, and the old one stops working at once (409 when revoked)',
        { parameters: [id, key], requestBody: jsonBody(rotateKeyBody.schema) },
        createdKey,
        '201',
      ),
    },
    '/admin/users/{id}/keys/{key}': {
      delete: admin('Revoke a key (409 when revoked already)', { parameters: [id, key] }, staffKey),
    },
  };
}
