// /admin/prices: every model's live price (integer micro-units); PUT stores an override (the price object, or
// {"price": {...}}) and applies it at once; DELETE drops it; /history lists a model's changes, newest first
// (core/admin/prices.ts).
import { decodeCursor } from '../../../contracts/cursor.ts';
import { qInt, qOnly, qPage, qString, type Query } from '../../../contracts/query.ts';
import { getPrice, listPrices, priceHistory, resetPrice, setPrice } from '../../../core/admin/prices.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { adminActor } from './admin-auth.ts';

type ByModel = { Params: { model: string } };

export const list = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  const p = qPage(req.query);
  return listPrices(deps, p.limit, p.cursor);
});

export const one = fastifyRoute<ByModel>(({ deps }) => async (req) => {
  return getPrice(deps, req.params.model);
});

export const set = fastifyRoute<ByModel>(({ deps }) => async (req) => {
  return setPrice(deps, adminActor(req), req.params.model, req.body);
});

export const reset = fastifyRoute<ByModel>(({ deps }) => async (req) => {
  return resetPrice(deps, adminActor(req), req.params.model);
});

export const history = fastifyRoute<ByModel & { Querystring: Query }>(({ deps }) => async (req) => {
  qOnly(req.query, ['limit', 'cursor']);
  const cursor = qString(req.query, 'cursor', 400);
  const beforeId = cursor === undefined ? undefined : (decodeCursor(cursor, ['n'])[0] as number);
  const limit = qInt(req.query, 'limit', 1, 1000, 100)!;
  return priceHistory(deps, req.params.model, { ...(beforeId !== undefined ? { beforeId } : {}), limit });
});
