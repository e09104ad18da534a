// /admin/accounts/{id}/members: the members of a customer account, who sign in to the portal (core/portal/members.ts).
import { issueMember, listMembers, parseIssueMember, revokeMember } from '../../../core/portal/members.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { adminActor } from './admin-auth.ts';

type ById = { Params: { id: string } };

export const create = fastifyRoute<ById>(({ deps }) => async (req, reply) => {
  const input = parseIssueMember(req.body);
  return reply.code(201).send(await issueMember(deps, adminActor(req), req.params.id, input));
});

export const list = fastifyRoute<ById>(
  ({ deps }) =>
    async (req) =>
      listMembers(deps, req.params.id),
);

export const revoke = fastifyRoute<ById & { Params: { member: string } }>(({ deps }) => async (req) => {
  return revokeMember(deps, adminActor(req), req.params.id, req.params.member);
});
