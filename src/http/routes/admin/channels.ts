// /admin/channels: upstream accounts (core/admin/channels.ts, core/admin/channel-changes.ts). DELETE disables: a
// channel stays for the audit trail. Reads never show keys (masked) and carry this instance's breaker state; the
// capacity read is the account's live limits, use and queue (core/admin/channel-capacity.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { channelCapacity } from '../../../core/admin/channel-capacity.ts';
import { channelView, getChannel, parseChannelEdit, testChannel, updateChannel } from '../../../core/admin/channel-changes.ts';
import { qPage, type Query } from '../../../contracts/query.ts';
import { addChannel, channelPage, parseCreateChannel, setChannelStatus } from '../../../core/admin/channels.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { adminActor } from './admin-auth.ts';

type ById = { Params: { id: string } };

export function registerChannelRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.post('/channels', async (req, reply) => {
    const channel = await addChannel(deps, adminActor(req), parseCreateChannel(req.body));
    return reply.code(201).send(channelView(deps, channel));
  });
  scope.get<{ Querystring: Query }>('/channels', async (req) => {
    const p = qPage(req.query);
    const page = await channelPage(deps, p.limit, p.cursor);
    return { ...page, data: page.data.map((c) => channelView(deps, c)) };
  });
  scope.get<ById>('/channels/:id', async (req) => channelView(deps, await getChannel(deps, req.params.id)));
  scope.patch<ById>('/channels/:id', async (req) => {
    const { kind } = await getChannel(deps, req.params.id);
    return channelView(deps, await updateChannel(deps, adminActor(req), req.params.id, parseChannelEdit(req.body, kind)));
  });
  scope.get<ById>('/channels/:id/capacity', async (req) => channelCapacity(deps, req.params.id));
  scope.post<ById>('/channels/:id/test', async (req) => testChannel(deps, adminActor(req), req.params.id));
  const setStatus = (status: 'enabled' | 'disabled') => async (req: FastifyRequest<ById>) =>
    channelView(deps, await setChannelStatus(deps, adminActor(req), req.params.id, status));
  scope.delete<ById>('/channels/:id', setStatus('disabled'));
  scope.post<ById>('/channels/:id/disable', setStatus('disabled'));
  scope.post<ById>('/channels/:id/enable', setStatus('enabled'));
}
