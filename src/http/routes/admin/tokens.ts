// /admin/tokens: client tokens (core/admin/tokens.ts; edits, top-ups and rotations in core/admin/token-changes.ts;
// callback secrets in core/admin/callback-secrets.ts; usage in core/admin/token-usage.ts).
import type { FastifyInstance } from 'fastify';
import { parseCallbackSecretRotate, rotateCallbackSecret } from '../../../core/admin/callback-secrets.ts';
import { parseRotate, parseTokenPatch, parseTopUp, rotateToken, topUp, updateToken } from '../../../core/admin/token-changes.ts';
import { qOnly, qPage, qTime, type Query } from '../../../contracts/query.ts';
import { decodeCursor, encodeCursor } from '../../../contracts/cursor.ts';
import { pageOf } from '../../../core/admin/lists.ts';
import { adminTokenUsage } from '../../../core/admin/token-usage.ts';
import { createdToken, getToken, issueToken, parseCreateToken, publicToken, revokeToken } from '../../../core/admin/tokens.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { adminActor } from './admin-auth.ts';

type ById = { Params: { id: string } };

export function registerTokenRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.post('/tokens', async (req, reply) => {
    const created = await issueToken(deps, adminActor(req), parseCreateToken(req.body));
    return reply.code(201).send(createdToken(created));
  });
  scope.get<{ Querystring: Query }>('/tokens', async (req) => {
    const { limit, cursor } = qPage(req.query);
    const after = cursor === undefined ? undefined : decodeCursor(cursor, ['n', 's']);
    const rows = await deps.repos.tokens.page(limit + 1, after && { createdAt: after[0] as number, id: after[1] as string });
    const { data, more, next } = pageOf(rows, limit, (t) => encodeCursor([t.createdAt, t.id]));
    return { data: data.map(publicToken), has_more: more, ...(next !== null ? { next_cursor: next } : {}) };
  });
  scope.get<ById>('/tokens/:id', async (req) => publicToken(await getToken(deps, req.params.id)));
  scope.get<ById & { Querystring: Query }>('/tokens/:id/usage', async (req) => {
    qOnly(req.query, ['since', 'until']);
    return adminTokenUsage(deps, req.params.id, { since: qTime(req.query, 'since'), until: qTime(req.query, 'until') });
  });
  scope.patch<ById>('/tokens/:id', async (req) => publicToken(await updateToken(deps, adminActor(req), req.params.id, parseTokenPatch(req.body))));
  scope.delete<ById>('/tokens/:id', async (req) => publicToken(await revokeToken(deps, adminActor(req), req.params.id)));
  scope.post<ById>('/tokens/:id/topup', async (req) => {
    const r = await topUp(deps, adminActor(req), req.params.id, parseTopUp(req.body));
    return { ...publicToken(r.token), topup: { amount: r.amount, credited: r.credited } };
  });
  scope.post<ById>('/tokens/:id/rotate', async (req) => {
    const { record, secret } = await rotateToken(deps, adminActor(req), req.params.id, parseRotate(req.body));
    // The only time the new secret is shown.
    return { ...publicToken(record), token: secret };
  });
  scope.post<ById>('/tokens/:id/callback-secret/rotate', async (req) => {
    const opts = parseCallbackSecretRotate(req.body, deps.config.callbacks.secretGraceMs);
    const { record, callbackSecret } = await rotateCallbackSecret(deps, adminActor(req), req.params.id, opts);
    // The only time the new callback secret is shown.
    return { ...publicToken(record), callback_secret: callbackSecret };
  });
}
