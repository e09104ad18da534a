// /admin/accounts and /admin/price-groups: customer accounts (core/admin/accounts.ts, usage in account-usage.ts) and
// the price groups they are charged by (core/admin/price-groups.ts).
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
import {
  getPriceGroup,
  parsePriceGroup,
  priceGroupPage,
  publicPriceGroup,
  putPriceGroup,
} from '../../../core/admin/price-groups.ts';
import { parseTopUp } from '../../../core/admin/token-changes.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { adminActor } from './admin-auth.ts';

type ById = { Params: { id: string } };

type ByName = { Params: { name: string } };

export const create = fastifyRoute(({ deps }) => async (req, reply) => {
  return reply.code(201).send(publicAccount(await createAccount(deps, adminActor(req), parseCreateAccount(req.body))));
});

export const list = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  const p = qPage(req.query);
  return accountPage(deps, p.limit, p.cursor);
});

export const one = fastifyRoute<ById>(({ deps }) => async (req) => {
  return publicAccount(await getAccount(deps, req.params.id));
});

export const update = fastifyRoute<ById>(({ deps }) => async (req) => {
  return publicAccount(await updateAccount(deps, adminActor(req), req.params.id, parseAccountPatch(req.body)));
});

export const revoke = fastifyRoute<ById>(({ deps }) => async (req) => {
  return publicAccount(await revokeAccount(deps, adminActor(req), req.params.id));
});

export const topup = fastifyRoute<ById>(({ deps }) => async (req) => {
  const r = await topUpAccountQuota(deps, adminActor(req), req.params.id, parseTopUp(req.body));
  return { ...publicAccount(r.account), topup: { amount: r.amount, credited: r.credited } };
});

export const usage = fastifyRoute<ById & { Querystring: Query }>(({ deps }) => async (req) => {
  qOnly(req.query, ['since', 'until']);
  return accountUsage(deps, req.params.id, { since: qTime(req.query, 'since'), until: qTime(req.query, 'until') });
});

export const priceGroups = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  const p = qPage(req.query);
  return priceGroupPage(deps, p.limit, p.cursor);
});

export const priceGroup = fastifyRoute<ByName>(({ deps }) => async (req) => {
  return publicPriceGroup(await getPriceGroup(deps, req.params.name));
});

export const putGroup = fastifyRoute<ByName>(({ deps }) => async (req, reply) => {
  const { group, created } = await putPriceGroup(
    deps,
    adminActor(req),
    req.params.name,
    parsePriceGroup(req.body, deps),
  );
  return reply.code(created ? 201 : 200).send(publicPriceGroup(group));
});
