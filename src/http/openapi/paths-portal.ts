// OpenAPI paths of the customer portal (routes/portal/: a member's session cookie, docs/portal.md) and of an
// account's members (routes/admin/members.ts).
import { issueMemberBody } from '../../core/admin/bodies/members.ts';
import {
  admin,
  arr,
  errorResponses,
  int,
  jsonBody,
  obj,
  ok,
  pathParam,
  query,
  str,
  type Operation,
  type Schema,
} from './schema.ts';

const E = errorResponses('v1');
const memberKey = obj(
  {
    id: str('mkey_…'),
    prefix: str("the key's first 10 characters"),
    state: { type: 'string', enum: ['live', 'expired', 'revoked'] },
    expires_at: int('ms'),
    revoked_at: { type: ['integer', 'null'] },
    created_at: int('ms'),
  },
  ['id', 'prefix', 'state', 'expires_at', 'revoked_at', 'created_at'],
);
const createdKey: Schema = {
  ...memberKey,
  properties: {
    ...(memberKey.properties as Record<string, Schema>),
    secret: str('twm-…: the member key, for the portal sign-in; shown only here, stored hashed'),
  },
};
const member = obj({
  id: str('mem_…'),
  account_id: str(),
  name: str(),
  email: str('lower-cased; unique within the account (an identity provider sign-in finds the member by it)'),
  revoked_at: { type: ['integer', 'null'] },
  created_at: int('ms'),
});
const days: Schema = {
  type: 'integer',
  minimum: 1,
  maximum: 3650,
  default: 90,
  description: 'Days until the key expires',
};
const account = pathParam('account', "The member's own account (any other answers 404)");
const token = pathParam('token', 'A token of that account (any other answers 404)');

/** A portal operation: the member's session cookie; a change needs X-CSRF-Token. */
function portal(
  summary: string,
  op: Omit<Operation, 'summary'> = {},
  okSchema: Schema = obj(),
  status = '200',
): Operation {
  return {
    tags: ['portal'],
    summary,
    description:
      "A member's portal session (the HttpOnly tollway_portal cookie); a change needs the session's X-CSRF-Token. Another account's id, or a token of another account, answers 404.",
    security: [],
    ...op,
    responses: { [status]: ok(okSchema), ...E },
  };
}

const portalFile = (summary: string, type: string): Record<string, Operation> => ({
  get: {
    tags: ['portal'],
    summary,
    security: [],
    responses: { '200': { description: summary, content: { [type]: { schema: str() } } } },
  },
});

export function portalPaths(): Record<string, Record<string, Operation>> {
  const session = obj({
    csrf: str('send as X-CSRF-Token with every change'),
    expires_at: int('ms'),
    member,
    account: obj({ id: str(), name: str() }),
    key: { type: ['object', 'null'], description: 'The member key signed in with (null: an identity provider)' },
  });
  const tokenCreate = obj(
    {
      name: str(),
      models: arr(str()),
      quota: int('micro-units; at most the account’s remaining quota'),
      expires_at: int('ms; at most the account’s expiry (its expiry when absent)'),
      rpm_limit: int(),
      tpm_limit: int(),
      concurrency_limit: int(),
      budgets: arr(obj({ period: str(), limit: int() }), 'each at most the account’s budget of its period'),
    },
    ['name'],
  );
  return {
    '/admin/accounts/{id}/members': {
      post: admin(
        'Issue a member of the account: the answer carries their first member key in `key`, its secret shown only here (409: the e-mail is taken in this account)',
        {
          parameters: [pathParam('id', 'Account id')],
          requestBody: jsonBody(issueMemberBody.schema),
        },
        { ...member, properties: { ...(member.properties as Record<string, Schema>), key: createdKey } },
        '201',
      ),
      get: admin(
        "The account's members and their keys (never a key itself)",
        { parameters: [pathParam('id', 'Account id')] },
        obj({ data: arr(member) }),
      ),
    },
    '/admin/accounts/{id}/members/{member}': {
      delete: admin(
        'Revoke a member: their keys and portal sessions stop working',
        { parameters: [pathParam('id', 'Account id'), pathParam('member', 'Member id')] },
        member,
      ),
    },
    '/portal': portalFile('The customer portal (one page; its routes are in the URL fragment)', 'text/html'),
    '/portal/app.js': portalFile("The portal's script bundle", 'text/javascript'),
    '/portal/app.css': portalFile("The portal's style sheet", 'text/css'),
    '/portal/api/session': {
      post: {
        tags: ['portal'],
        summary:
          'Sign in with a member key: sets the HttpOnly, SameSite=Strict, Path=/portal session cookie; 403 wrong key, 401 an expired or rotated key, 429 after 5 wrong keys a minute from one address',
        security: [],
        requestBody: jsonBody(obj({ key: str('twm-…') }, ['key'])),
        responses: { '201': ok(session), ...E },
      },
      get: {
        tags: ['portal'],
        summary: 'The signed-in session, or 401',
        security: [],
        responses: { '200': ok(session), ...E },
      },
      delete: {
        tags: ['portal'],
        summary: 'Sign out (needs X-CSRF-Token): the session is revoked',
        security: [],
        responses: { '204': { description: 'Signed out' }, ...E },
      },
    },
    '/portal/api/key/rotate': {
      post: portal(
        'The member rotates the key they signed in with: the new one is shown only here; the old one stops at once',
        { requestBody: jsonBody(obj({ expires_in_days: days })) },
        createdKey,
      ),
    },
    '/portal/api/accounts/{account}': {
      get: portal("The account's balance and budgets, and each token's remaining quota and budgets", {
        parameters: [account],
      }),
    },
    '/portal/api/accounts/{account}/usage': {
      get: portal('Requests and spend by UTC day and model over the last `days` days', {
        parameters: [account, query('days', { type: 'integer', minimum: 1, maximum: 366, default: 30 }, 'Days')],
      }),
    },
    '/portal/api/accounts/{account}/bills': {
      get: portal("The bill of the account's tokens (JSON, or CSV with format=csv), in the account's time zone", {
        parameters: [
          account,
          query('period', { type: 'string', enum: ['day', 'week', 'month'], default: 'month' }, 'Period'),
          query('by', { type: 'string', enum: ['token', 'model'], default: 'token' }, 'A line per token, or per model'),
          query('since', int('ms'), 'From'),
          query('until', int('ms'), 'Until'),
          query('format', { type: 'string', enum: ['json', 'csv'], default: 'json' }, 'Format'),
        ],
      }),
    },
    '/portal/api/accounts/{account}/logs': {
      get: portal(
        "The request log of the account's tokens, newest first: no channel, upstream attempt, upstream request id or upstream words",
        {
          parameters: [
            account,
            query('token_id', str(), 'One token of the account'),
            query('since', int('ms'), 'From'),
            query('until', int('ms'), 'Until'),
            query('limit', { type: 'integer', minimum: 1, maximum: 200, default: 50 }, 'Rows'),
            query('cursor', str(), 'next_cursor of the previous page'),
          ],
        },
      ),
    },
    '/portal/api/accounts/{account}/tokens': {
      get: portal("The account's tokens (never a secret)", { parameters: [account] }),
      post: portal(
        'Create a token of the account, within what the account allows; its secret and callback secret are shown only here',
        { parameters: [account], requestBody: jsonBody(tokenCreate) },
        obj(),
        '201',
      ),
    },
    '/portal/api/accounts/{account}/tokens/{token}': {
      get: portal('A token of the account', { parameters: [account, token] }),
      delete: portal('Revoke a token of the account', { parameters: [account, token] }),
    },
    '/portal/api/accounts/{account}/tokens/{token}/rotate': {
      post: portal('A new secret (shown only here, in `token`); the old one stops at once', {
        parameters: [account, token],
      }),
    },
    '/portal/api/accounts/{account}/tokens/{token}/callback-secret': {
      get: portal("The token's current callback secret (whsec_…), which its task callbacks are signed with", {
        parameters: [account, token],
      }),
    },
    '/portal/api/accounts/{account}/redeem': {
      post: portal('Redeem a credit code for the account: one ledger credit, once', {
        parameters: [account],
        requestBody: jsonBody(obj({ code: str('twc_…') }, ['code'])),
      }),
    },
  };
}
