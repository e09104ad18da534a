// /admin/users: staff people, their roles and personal admin keys (core/staff/people.ts). Only an owner reaches these
// (the route table's `users` rule). A key's secret is in the answer that made it, and nowhere else.
import { qPage, type Query } from '../../../contracts/query.ts';
import {
  addKey,
  createPerson,
  parseCreatePerson,
  parseNewKey,
  parsePersonPatch,
  parseRotateKey,
  personPage,
  personWithKeys,
  revokeKey as revoke,
  rotateKey as rotate,
  updatePerson,
} from '../../../core/staff/people.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { adminActor } from './admin-auth.ts';

type ById = { Params: { id: string } };
type ByKey = { Params: { id: string; key: string } };

export const create = fastifyRoute(({ deps }) => async (req, reply) => {
  return reply.code(201).send(await createPerson(deps, adminActor(req), parseCreatePerson(req.body)));
});

export const list = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  const p = qPage(req.query);
  return personPage(deps, p.limit, p.cursor);
});

export const one = fastifyRoute<ById>(
  ({ deps }) =>
    async (req) =>
      personWithKeys(deps, req.params.id),
);

export const update = fastifyRoute<ById>(({ deps }) => async (req) => {
  return updatePerson(deps, adminActor(req), req.params.id, parsePersonPatch(req.body));
});

/** DELETE disables: a person stays, for the audit lines that name them. */
export const disable = fastifyRoute<ById>(({ deps }) => async (req) => {
  return updatePerson(deps, adminActor(req), req.params.id, { disabled: true });
});

export const addKeyRoute = fastifyRoute<ById>(({ deps }) => async (req, reply) => {
  return reply.code(201).send(await addKey(deps, adminActor(req), req.params.id, parseNewKey(req.body)));
});
export { addKeyRoute as addKey };

export const rotateKey = fastifyRoute<ByKey>(({ deps }) => async (req, reply) => {
  const days = parseRotateKey(req.body);
  return reply.code(201).send(await rotate(deps, adminActor(req), req.params.id, req.params.key, days));
});

export const revokeKey = fastifyRoute<ByKey>(({ deps }) => async (req) => {
  return revoke(deps, adminActor(req), req.params.id, req.params.key);
});
