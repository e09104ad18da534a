// /admin/channels: upstream accounts (core/admin/channels.ts, core/admin/channel-changes.ts). DELETE disables: a
// channel stays for the audit trail. Reads never show keys (masked) and carry this instance's breaker state; the
// capacity read is the account's live limits, use and queue (core/admin/channel-capacity.ts).
import { channelCapacity } from '../../../core/admin/channel-capacity.ts';
import { channelKinds } from '../../../core/admin/channel-kinds.ts';
import {
  channelView,
  getChannel,
  parseChannelEdit,
  testChannel,
  updateChannel,
} from '../../../core/admin/channel-changes.ts';
import { qPage, type Query } from '../../../contracts/query.ts';
import { addChannel, channelPage, parseCreateChannel, setChannelStatus } from '../../../core/admin/channels.ts';
import type { HasState } from '../../../core/call.ts';
import { seesSecrets } from '../../../core/staff/roles.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { adminActor } from './admin-auth.ts';

type ById = { Params: { id: string } };

export const create = fastifyRoute(({ deps }) => async (req, reply) => {
  const channel = await addChannel(deps, adminActor(req), parseCreateChannel(req.body));
  return reply.code(201).send(channelView(deps, channel));
});

/** A viewer never sees a secret: not even a key's last characters. */
const secrets = (req: HasState) => req.state.staff === null || seesSecrets(req.state.staff.role);

export const list = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  const p = qPage(req.query);
  const page = await channelPage(deps, p.limit, p.cursor);
  return { ...page, data: page.data.map((c) => channelView(deps, c, secrets(req))) };
});

export const one = fastifyRoute<ById>(({ deps }) => async (req) => {
  return channelView(deps, await getChannel(deps, req.params.id), secrets(req));
});

export const update = fastifyRoute<ById>(({ deps }) => async (req) => {
  const { kind } = await getChannel(deps, req.params.id);
  return channelView(deps, await updateChannel(deps, adminActor(req), req.params.id, parseChannelEdit(req.body, kind)));
});

/** The kinds a channel may have and the key fields each declares: what the console's channel form offers. */
export const kinds = fastifyRoute(({ deps }) => async () => ({ data: channelKinds(deps) }));

export const capacity = fastifyRoute<ById>(({ deps }) => async (req) => {
  return channelCapacity(deps, req.params.id);
});

export const test = fastifyRoute<ById>(({ deps }) => async (req) => {
  return testChannel(deps, adminActor(req), req.params.id);
});

const setStatus = (status: 'enabled' | 'disabled') =>
  fastifyRoute<ById>(({ deps }) => async (req) => {
    return channelView(deps, await setChannelStatus(deps, adminActor(req), req.params.id, status));
  });

/** DELETE and POST …/disable alike. */
export const disable = setStatus('disabled');
export const enable = setStatus('enabled');
