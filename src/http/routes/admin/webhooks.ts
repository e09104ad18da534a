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
import { redeliver, type SendNow, testWebhook } from '../../../core/admin/webhook-sends.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { sendClaimedNow } from '../../../alerts/attempt.ts';
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

/** This instance sends the attempt itself, through the alert deliveries' own attempt, and answers with its outcome. */
function sendNow(deps: GatewayDeps): SendNow {
  const o = deps.config.alerts;
  const ctx = {
    db: deps.store.db,
    box: deps.box,
    logger: deps.logger,
    agents: deps.net.agents,
    o: { ...o, allowPrivateNetwork: deps.config.allowPrivateNetwork },
  };
  return (d) => sendClaimedNow(ctx, d, o.timeoutMs);
}

export const test = fastifyRoute<ById>(({ deps }) => async (req) => {
  return testWebhook(deps, adminActor(req), req.params.id, sendNow(deps));
});

export const redeliverOne = fastifyRoute<{ Params: { id: string; delivery: string } }>(({ deps }) => async (req) => {
  return redeliver(deps, adminActor(req), req.params.id, req.params.delivery, sendNow(deps));
});
