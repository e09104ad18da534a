// /admin/webhooks: operator alert webhooks and their deliveries (core/admin/webhooks.ts).
import type { FastifyInstance } from 'fastify';
import { qPage, type Query } from '../../../contracts/query.ts';
import {
  createWebhook,
  deleteWebhook,
  deliveryPage,
  getWebhook,
  parseCreateWebhook,
  parseWebhookPatch,
  publicWebhook,
  updateWebhook,
  webhookPage,
} from '../../../core/admin/webhooks.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { adminActor } from './admin-auth.ts';

type ById = { Params: { id: string } };

export function registerWebhookRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  const allowPrivate = deps.config.allowPrivateNetwork;
  scope.post('/webhooks', async (req, reply) => {
    const { record, secret } = await createWebhook(deps, adminActor(req), parseCreateWebhook(req.body, allowPrivate));
    // The only time the secret is shown.
    return reply.code(201).send({ ...publicWebhook(record), secret });
  });
  scope.get<{ Querystring: Query }>('/webhooks', async (req) => {
    const p = qPage(req.query);
    return webhookPage(deps, p.limit, p.cursor);
  });
  scope.get<ById>('/webhooks/:id', async (req) => publicWebhook(await getWebhook(deps, req.params.id)));
  scope.patch<ById>('/webhooks/:id', async (req) =>
    publicWebhook(await updateWebhook(deps, adminActor(req), req.params.id, parseWebhookPatch(req.body, allowPrivate))),
  );
  scope.delete<ById>('/webhooks/:id', async (req) => publicWebhook(await deleteWebhook(deps, adminActor(req), req.params.id)));
  scope.get<ById & { Querystring: Query }>('/webhooks/:id/deliveries', async (req) => {
    const p = qPage(req.query);
    return deliveryPage(deps, req.params.id, p.limit, p.cursor);
  });
}
