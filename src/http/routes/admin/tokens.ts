// /admin/tokens: client tokens (core/admin/tokens.ts; edits, top-ups and rotations in core/admin/token-changes.ts;
// callback secrets in core/admin/callback-secrets.ts; usage in core/admin/token-usage.ts).
import { parseCallbackSecretRotate, rotateCallbackSecret } from '../../../core/admin/callback-secrets.ts';
import {
  parseRotate,
  parseTokenPatch,
  parseTopUp,
  rotateToken,
  topUp,
  updateToken,
} from '../../../core/admin/token-changes.ts';
import { qOnly, qPage, qTime, type Query } from '../../../contracts/query.ts';
import { decodeCursor, encodeCursor } from '../../../contracts/cursor.ts';
import { pageOf } from '../../../core/admin/lists.ts';
import { adminTokenUsage } from '../../../core/admin/token-usage.ts';
import { createdToken, getToken, issueToken, parseCreateToken, revokeToken } from '../../../core/admin/tokens.ts';
import { tokenView, tokenViews } from '../../../core/admin/token-views.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { adminActor } from './admin-auth.ts';

type ById = { Params: { id: string } };

export const create = fastifyRoute(({ deps }) => async (req, reply) => {
  const created = await issueToken(deps, adminActor(req), parseCreateToken(req.body));
  return reply.code(201).send(createdToken(created));
});

export const list = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  const { limit, cursor } = qPage(req.query);
  const after = cursor === undefined ? undefined : decodeCursor(cursor, ['n', 's']);
  const rows = await deps.repos.tokens.page(
    limit + 1,
    after && { createdAt: after[0] as number, id: after[1] as string },
  );
  const { data, more, next } = pageOf(rows, limit, (t) => encodeCursor([t.createdAt, t.id]));
  return { data: await tokenViews(deps, data), has_more: more, ...(next !== null ? { next_cursor: next } : {}) };
});

export const one = fastifyRoute<ById>(({ deps }) => async (req) => {
  return await tokenView(deps, await getToken(deps, req.params.id));
});

export const usage = fastifyRoute<ById & { Querystring: Query }>(({ deps }) => async (req) => {
  qOnly(req.query, ['since', 'until']);
  return adminTokenUsage(deps, req.params.id, { since: qTime(req.query, 'since'), until: qTime(req.query, 'until') });
});

export const update = fastifyRoute<ById>(({ deps }) => async (req) => {
  return await tokenView(deps, await updateToken(deps, adminActor(req), req.params.id, parseTokenPatch(req.body)));
});

export const revoke = fastifyRoute<ById>(({ deps }) => async (req) => {
  return await tokenView(deps, await revokeToken(deps, adminActor(req), req.params.id));
});

export const topup = fastifyRoute<ById>(({ deps }) => async (req) => {
  const r = await topUp(deps, adminActor(req), req.params.id, parseTopUp(req.body));
  return { ...(await tokenView(deps, r.token)), topup: { amount: r.amount, credited: r.credited } };
});

export const rotate = fastifyRoute<ById>(({ deps }) => async (req) => {
  const { record, secret } = await rotateToken(deps, adminActor(req), req.params.id, parseRotate(req.body));
  // The only time the new secret is shown.
  return { ...(await tokenView(deps, record)), token: secret };
});

export const rotateCallback = fastifyRoute<ById>(({ deps }) => async (req) => {
  const opts = parseCallbackSecretRotate(req.body, deps.config.callbacks.secretGraceMs);
  const { record, callbackSecret } = await rotateCallbackSecret(deps, adminActor(req), req.params.id, opts);
  // The only time the new callback secret is shown.
  return { ...(await tokenView(deps, record)), callback_secret: callbackSecret };
});
