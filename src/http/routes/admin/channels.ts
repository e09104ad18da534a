// /admin/channels: upstream accounts (core/admin/channels.ts). DELETE disables: a channel stays for the audit trail.
import type { FastifyInstance } from 'fastify';
import { addChannel, listChannels, parseCreateChannel, publicChannel, setChannelStatus } from '../../../core/admin/channels.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { adminActor } from './admin-auth.ts';

type ById = { Params: { id: string } };

export function registerChannelRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.post('/channels', async (req, reply) => {
    const channel = await addChannel(deps, adminActor(req), parseCreateChannel(req.body));
    return reply.code(201).send(publicChannel(channel));
  });
  scope.get('/channels', async () => ({ data: (await listChannels(deps)).map(publicChannel) }));
  const setStatus = (status: 'enabled' | 'disabled') => async (req: { params: { id: string }; id: string }) =>
    publicChannel(await setChannelStatus(deps, adminActor(req), req.params.id, status));
  scope.delete<ById>('/channels/:id', setStatus('disabled'));
  scope.post<ById>('/channels/:id/disable', setStatus('disabled'));
  scope.post<ById>('/channels/:id/enable', setStatus('enabled'));
}
