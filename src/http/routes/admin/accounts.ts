// /admin/accounts and /admin/price-groups: customer accounts (core/admin/accounts.ts, usage in account-usage.ts) and
// the price groups they are charged by (core/admin/price-groups.ts).
import type { FastifyInstance } from 'fastify';
import { qOnly, qPage, qTime, type Query } from '../../../contracts/query.ts';
import { accountUsage } from '../../../core/admin/account-usage.ts';
import {
  accountPage,
  createAccount,
  getAccount,
  parseAccountPatch,
  parseCreateAccount,
  publicAccount,
  revokeAccount,
  topUpAccountQuota,
  updateAccount,
} from '../../../core/admin/accounts.ts';
import { getPriceGroup, parsePriceGroup, priceGroupPage, publicPriceGroup, putPriceGroup } from '../../../core/admin/price-groups.ts';
import { parseTopUp } from '../../../core/admin/token-changes.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { adminActor } from './admin-auth.ts';

type ById = { Params: { id: string } };

export function registerAccountRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.post('/accounts', async (req, reply) => reply.code(201).send(publicAccount(await createAccount(deps, adminActor(req), parseCreateAccount(req.body)))));
  scope.get<{ Querystring: Query }>('/accounts', async (req) => {
    const p = qPage(req.query);
    return accountPage(deps, p.limit, p.cursor);
  });
  scope.get<ById>('/accounts/:id', async (req) => publicAccount(await getAccount(deps, req.params.id)));
  scope.patch<ById>('/accounts/:id', async (req) => publicAccount(await updateAccount(deps, adminActor(req), req.params.id, parseAccountPatch(req.body))));
  scope.delete<ById>('/accounts/:id', async (req) => publicAccount(await revokeAccount(deps, adminActor(req), req.params.id)));
  scope.post<ById>('/accounts/:id/topup', async (req) => {
    const r = await topUpAccountQuota(deps, adminActor(req), req.params.id, parseTopUp(req.body));
    return { ...publicAccount(r.account), topup: { amount: r.amount, credited: r.credited } };
  });
  scope.get<ById & { Querystring: Query }>('/accounts/:id/usage', async (req) => {
    qOnly(req.query, ['since', 'until']);
    return accountUsage(deps, req.params.id, { since: qTime(req.query, 'since'), until: qTime(req.query, 'until') });
  });
  scope.get<{ Querystring: Query }>('/price-groups', async (req) => {
    const p = qPage(req.query);
    return priceGroupPage(deps, p.limit, p.cursor);
  });
  scope.get<{ Params: { name: string } }>('/price-groups/:name', async (req) => publicPriceGroup(await getPriceGroup(deps, req.params.name)));
  scope.put<{ Params: { name: string } }>('/price-groups/:name', async (req, reply) => {
    const { group, created } = await putPriceGroup(deps, adminActor(req), req.params.name, parsePriceGroup(req.body, deps));
    return reply.code(created ? 201 : 200).send(publicPriceGroup(group));
  });
}
