// /admin/credit: redemption code batches, their redemptions and the payment events (core/credit/).
import { qPage, type Query } from '../../../contracts/query.ts';
import {
  batchDetail,
  batchPage,
  createBatch,
  parseCreateBatch,
  publicBatch,
  redemptionPage,
  revokeBatch,
} from '../../../core/credit/batches.ts';
import { paymentPage } from '../../../core/credit/payments.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { adminActor } from './admin-auth.ts';

type ById = { Params: { id: string } };

export const createBatchRoute = fastifyRoute(({ deps }) => async (req, reply) => {
  const { batch, codes } = await createBatch(deps, adminActor(req), parseCreateBatch(req.body));
  // The only time the codes are shown: only their hashes are kept.
  return reply.code(201).send({ ...publicBatch(batch), codes });
});

export const batches = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  const p = qPage(req.query);
  return batchPage(deps, p.limit, p.cursor);
});

export const batch = fastifyRoute<ById>(
  ({ deps }) =>
    async (req) =>
      batchDetail(deps, req.params.id),
);

export const revokeBatchRoute = fastifyRoute<ById>(({ deps }) => async (req) => {
  return publicBatch(await revokeBatch(deps, adminActor(req), req.params.id));
});

export const redemptions = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  const p = qPage(req.query);
  return redemptionPage(deps, p.limit, p.cursor);
});

export const payments = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  const p = qPage(req.query);
  return paymentPage(deps, p.limit, p.cursor);
});
