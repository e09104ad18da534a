// OpenAPI paths of the admin API (bearer TOLLWAY_ADMIN_KEY): tokens, channels and the audit log.
import { staffAuditEntry } from './paths-staff.ts';
import { channelCapacity } from './admin-schemas-capacity.ts';
import { str, int, arr, obj, jsonBody, pathParam, query, admin, type Operation, type Schema } from './schema.ts';
import { tokenUsageView } from './schema-v1.ts';
import { listPage, micro, timeParam, limitParam, tokenView, cursorParam } from './admin-schemas.ts';
import {
  createTokenBody,
  rotateCallbackSecretBody,
  rotateTokenBody,
  tokenPatchBody,
  topUpBody,
} from '../../core/admin/bodies/tokens.ts';
import { channelCheck, channelKindView, channelView } from './admin-schemas-channels.ts';
import { channelPatchBody, createChannelBody } from '../../core/admin/bodies/channels.ts';

const tokenId = [pathParam('id', 'Token id')];
const CALLBACK_SECRET = str(
  "whsec_ + base64 of 32 random bytes: verifies the token's task callbacks (Standard Webhooks); shown once",
);
const channelId = [pathParam('id', 'Channel id')];

export function adminPaths(): Record<string, Record<string, Operation>> {
  return {
    '/admin/tokens': {
      post: admin(
        'Create a client token (the secret is shown only in this answer; unknown fields are refused)',
        {
          requestBody: jsonBody(createTokenBody.schema),
        },
        obj(
          {
            id: str(),
            name: str(),
            token: str('the secret, shown once'),
            callback_secret: CALLBACK_SECRET,
            models: { type: ['array', 'null'], items: str() },
            quota: { type: ['integer', 'null'] },
            expires_at: { type: ['integer', 'null'] },
            created_at: int('ms'),
          },
          ['id', 'name', 'token', 'callback_secret', 'models', 'quota', 'expires_at', 'created_at'],
        ),
        '201',
      ),
      get: admin(
        'List tokens in creation order, a page at a time (never the secret; unknown parameters are refused)',
        { parameters: [limitParam, cursorParam] },
        obj({ data: arr(tokenView), has_more: { type: 'boolean' }, next_cursor: str('present when has_more') }),
      ),
    },
    '/admin/tokens/{id}': {
      get: admin('One token', { parameters: tokenId }, tokenView),
      patch: admin(
        'Edit a token (applies on its next request; unknown fields are refused)',
        { parameters: tokenId, requestBody: jsonBody(tokenPatchBody.schema) },
        tokenView,
      ),
      delete: admin('Revoke a token (takes effect at once)', { parameters: tokenId }, tokenView),
    },
    '/admin/tokens/{id}/usage': {
      get: admin(
        "A token's balance and its charges per model for a period (default: the current UTC month), from the ledger: what its holder reads at GET /v1/usage",
        {
          parameters: [
            ...tokenId,
            timeParam('since'),
            query(
              'until',
              str(),
              'Exclusive upper bound (at most 367 days after since): ms since the epoch or an ISO 8601 date/date-time',
            ),
          ],
        },
        tokenUsageView,
      ),
    },
    '/admin/tokens/{id}/topup': {
      post: admin(
        "Add to a token's quota: one ledger line of kind credit, in the same transaction",
        {
          parameters: tokenId,
          requestBody: jsonBody(topUpBody.schema),
        },
        {
          ...tokenView,
          properties: {
            ...(tokenView.properties as Schema),
            topup: obj({
              amount: micro(),
              credited: { type: 'boolean', description: 'false when the idempotency key was used before' },
            }),
          },
        },
      ),
    },
    '/admin/tokens/{id}/rotate': {
      post: admin(
        'A new secret for the same token (shown only in this answer); the old one works for grace_ms more',
        {
          parameters: tokenId,
          requestBody: { ...jsonBody(rotateTokenBody.schema), required: false },
        },
        { ...tokenView, properties: { ...(tokenView.properties as Schema), token: str('the new secret, shown once') } },
      ),
    },
    '/admin/tokens/{id}/callback-secret/rotate': {
      post: admin(
        'A new callback secret for the token (shown only in this answer): its task callbacks are signed with it from now on, and with the one it replaces too for grace_ms more (a second v1 signature in webhook-signature)',
        {
          parameters: tokenId,
          requestBody: { ...jsonBody(rotateCallbackSecretBody.schema), required: false },
        },
        { ...tokenView, properties: { ...(tokenView.properties as Schema), callback_secret: CALLBACK_SECRET } },
      ),
    },
    '/admin/channels': {
      post: admin(
        "Add an upstream channel (keys encrypted at rest, never shown again; unknown fields, and the other kind's key fields, are refused)",
        {
          requestBody: jsonBody(createChannelBody.schema),
        },
        channelView,
        '201',
      ),
      get: admin(
        'List channels in creation order, a page at a time (never the keys; unknown parameters are refused)',
        { parameters: [limitParam, cursorParam] },
        listPage(channelView),
      ),
    },
    '/admin/channels/{id}': {
      get: admin("One channel: masked keys and this instance's breaker state", { parameters: channelId }, channelView),
      patch: admin(
        'Edit a channel (keys write-only; kind cannot change; unknown fields are refused)',
        { parameters: channelId, requestBody: jsonBody(channelPatchBody.schema) },
        channelView,
      ),
      delete: admin('Disable a channel', { parameters: channelId }, channelView),
    },
    '/admin/channel-kinds': {
      get: admin(
        'The kinds a channel may have: per kind its default base URL, the key fields it declares and the models it serves',
        {},
        obj({ data: arr(channelKindView) }, ['data']),
      ),
    },
    '/admin/channels/{id}/capacity': {
      get: admin(
        "The channel's upstream account live: per upstream model its limits (stated, read, learnt), this instance's use over the last minute, calls in flight and queued",
        { parameters: channelId },
        channelCapacity,
      ),
    },
    '/admin/channels/{id}/test': {
      post: admin(
        'Check a channel with one cheap authenticated upstream call (nothing generated or billed)',
        { parameters: channelId },
        channelCheck,
      ),
    },
    '/admin/channels/{id}/disable': {
      post: admin('Disable a channel', { parameters: [pathParam('id', 'Channel id')] }, channelView),
    },
    '/admin/channels/{id}/enable': {
      post: admin('Enable a channel', { parameters: [pathParam('id', 'Channel id')] }, channelView),
    },
    '/admin/audit': {
      get: admin(
        'Audit log: every admin action, newest first (unknown parameters are refused)',
        {
          parameters: [
            query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, 'Entries to return'),
            query('cursor', str(), 'next_cursor of the previous page'),
            query('action', str(), 'Only this action (e.g. token.create)'),
            query(
              'actor',
              str(),
              'Only this actor: admin, cli, meter, console (every console session) or console:<session id>',
            ),
            query('target', str(), 'Only entries about this id'),
            query('person', str(), 'Only changes made by this staff person (usr_…)'),
          ],
        },
        obj({ data: arr(staffAuditEntry), has_more: { type: 'boolean' }, next_cursor: str('present when has_more') }),
      ),
    },
  };
}
