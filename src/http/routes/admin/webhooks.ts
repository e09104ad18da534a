// /admin/webhooks: operator alert webhooks and their deliveries (core/admin/webhooks.ts).
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
import { fastifyRoute } from '../../front/route-row.ts';
import { adminActor } from './admin-auth.ts';

type ById = { Params: { id: string } };

export const create = fastifyRoute(({ deps }) => async (req, reply) => {
  const fields = parseCreateWebhook(req.body, deps.config.allowPrivateNetwork);
  const { record, secret } = await createWebhook(deps, adminActor(req), fields);
  // The only time the secret is shown.
  return reply.code(201).send({ ...publicWebhook(record), secret });
});

export const list = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  const p = qPage(req.query);
  return webhookPage(deps, p.limit, p.cursor);
});

export const one = fastifyRoute<ById>(({ deps }) => async (req) => {
  return publicWebhook(await getWebhook(deps, req.params.id));
});

export const update = fastifyRoute<ById>(({ deps }) => async (req) => {
  const patch = parseWebhookPatch(req.body, deps.config.allowPrivateNetwork);
  return publicWebhook(await updateWebhook(deps, adminActor(req), req.params.id, patch));
});

export const remove = fastifyRoute<ById>(({ deps }) => async (req) => {
  return publicWebhook(await deleteWebhook(deps, adminActor(req), req.params.id));
});

export const deliveries = fastifyRoute<ById & { Querystring: Query }>(({ deps }) => async (req) => {
  const p = qPage(req.query);
  return deliveryPage(deps, req.params.id, p.limit, p.cursor);
});
