// Which shared body schema (core/admin/bodies/…) each admin route with a body is checked against: the route's
// OpenAPI operation shows that very object (test/http/openapi/admin-bodies.test.ts holds the two together).
import type { TSchema } from '@sinclair/typebox';
import { accountPatchBody, createAccountBody } from '../../core/admin/bodies/accounts.ts';
import { issueMemberBody } from '../../core/admin/bodies/members.ts';
import { createPersonBody, newKeyBody, personPatchBody, rotateKeyBody } from '../../core/admin/bodies/users.ts';
import { channelPatchBody, createChannelBody } from '../../core/admin/bodies/channels.ts';
import { createBatchBody } from '../../core/admin/bodies/credit.ts';
import { priceBody } from '../../core/admin/bodies/prices.ts';
import { priceGroupBody } from '../../core/admin/bodies/price-groups.ts';
import type { BodyCheck } from '../../core/admin/bodies/check.ts';
import {
  createTokenBody,
  rotateCallbackSecretBody,
  rotateTokenBody,
  tokenPatchBody,
  topUpBody,
} from '../../core/admin/bodies/tokens.ts';
import { createWebhookBody, webhookPatchBody } from '../../core/admin/bodies/webhooks.ts';

/** By `METHOD /openapi/path`. */
export const ADMIN_BODIES: Readonly<Record<string, BodyCheck<TSchema>>> = {
  'POST /admin/tokens': createTokenBody,
  'PATCH /admin/tokens/{id}': tokenPatchBody,
  'POST /admin/tokens/{id}/rotate': rotateTokenBody,
  'POST /admin/tokens/{id}/callback-secret/rotate': rotateCallbackSecretBody,
  'POST /admin/tokens/{id}/topup': topUpBody,
  'POST /admin/accounts/{id}/topup': topUpBody,
  'POST /admin/accounts': createAccountBody,
  'PATCH /admin/accounts/{id}': accountPatchBody,
  'POST /admin/accounts/{id}/members': issueMemberBody,
  'POST /admin/users': createPersonBody,
  'PATCH /admin/users/{id}': personPatchBody,
  'POST /admin/users/{id}/keys': newKeyBody,
  'POST /admin/users/{id}/keys/{key}/rotate': rotateKeyBody,
  'POST /admin/channels': createChannelBody,
  'PATCH /admin/channels/{id}': channelPatchBody,
  'POST /admin/credit/batches': createBatchBody,
  'PUT /admin/price-groups/{name}': priceGroupBody,
  'PUT /admin/prices/{model}': priceBody,
  'POST /admin/webhooks': createWebhookBody,
  'PATCH /admin/webhooks/{id}': webhookPatchBody,
};
