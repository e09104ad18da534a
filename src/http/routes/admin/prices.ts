// /admin/prices: every model's live price (integer micro-units); PUT stores an override (the price object, or
// {"price": {...}}) and applies it at once; DELETE drops it (core/admin/prices.ts).
import type { FastifyInstance } from 'fastify';
import { getPrice, listPrices, resetPrice, setPrice } from '../../../core/admin/prices.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { adminActor } from './admin-auth.ts';

type ByModel = { Params: { model: string } };

export function registerPriceRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.get('/prices', async () => listPrices(deps));
  scope.get<ByModel>('/prices/:model', async (req) => getPrice(deps, req.params.model));
  scope.put<ByModel>('/prices/:model', async (req) => setPrice(deps, adminActor(req), req.params.model, req.body));
  scope.delete<ByModel>('/prices/:model', async (req) => resetPrice(deps, adminActor(req), req.params.model));
}
