// /admin/prices: every model's live price (integer micro-units); PUT stores an override (the price object, or
// {"price": {...}}) and applies it at once; DELETE drops it; /history lists a model's changes, newest first
// (core/admin/prices.ts).
import type { FastifyInstance } from 'fastify';
import { decodeCursor } from '../../../contracts/cursor.ts';
import { qInt, qOnly, qPage, qString, type Query } from '../../../contracts/query.ts';
import { getPrice, listPrices, priceHistory, resetPrice, setPrice } from '../../../core/admin/prices.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { adminActor } from './admin-auth.ts';

type ByModel = { Params: { model: string } };

export function registerPriceRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.get<{ Querystring: Query }>('/prices', async (req) => {
    const p = qPage(req.query);
    return listPrices(deps, p.limit, p.cursor);
  });
  scope.get<ByModel>('/prices/:model', async (req) => getPrice(deps, req.params.model));
  scope.put<ByModel>('/prices/:model', async (req) => setPrice(deps, adminActor(req), req.params.model, req.body));
  scope.delete<ByModel>('/prices/:model', async (req) => resetPrice(deps, adminActor(req), req.params.model));
  scope.get<ByModel & { Querystring: Query }>('/prices/:model/history', async (req) => {
    qOnly(req.query, ['limit', 'cursor']);
    const cursor = qString(req.query, 'cursor', 400);
    const beforeId = cursor === undefined ? undefined : (decodeCursor(cursor, ['n'])[0] as number);
    const limit = qInt(req.query, 'limit', 1, 1000, 100)!;
    return priceHistory(deps, req.params.model, { ...(beforeId !== undefined ? { beforeId } : {}), limit });
  });
}
