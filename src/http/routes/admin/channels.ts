import type { FastifyInstance } from 'fastify';
import { newId } from '../../../auth/token-secret.ts';
import { isObject, optEnum, optInt, optString, optStringArray, reqString } from '../../../contracts/fields.ts';
import { checkRegion, ConfigError } from '../../../config/config.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { ChannelKeys } from '../../../routing/channel-registry.ts';
import { CHANNEL_KINDS, type ChannelKind, type ChannelRecord } from '../../../store/repos/channels.ts';
import { isUniqueViolation } from '../../../store/store.ts';
import type { AppDeps } from '../../deps.ts';
import { DEFAULT_DASHSCOPE_BASE_URL, DEFAULT_KLING_BASE_URL, FOREIGN_DASHSCOPE, FOREIGN_KLING } from '../../../config/config.ts';

/** Channel as shown to the operator: never the keys. */
export function publicChannel(c: ChannelRecord) {
  return {
    id: c.id,
    name: c.name,
    kind: c.kind,
    base_url: c.baseUrl,
    models: c.models,
    status: c.status,
    priority: c.priority,
    weight: c.weight,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

export interface CreateChannelInput {
  name: string;
  kind: ChannelKind;
  baseUrl: string;
  keys: ChannelKeys;
  models: string[] | null;
  priority?: number | undefined;
  weight?: number | undefined;
}

// The same region rule as the start-up configuration: one domestic region, never mixed.
const FOREIGN: Record<ChannelKind, RegExp> = { dashscope: FOREIGN_DASHSCOPE, kling: FOREIGN_KLING };

export function parseCreateChannel(body: unknown): CreateChannelInput {
  if (!isObject(body)) throw new GatewayError('invalid_request', 'Request body must be a JSON object');
  const name = reqString(body, 'name', { max: 200 });
  const kind = optEnum(body, 'kind', CHANNEL_KINDS);
  if (!kind) throw new GatewayError('missing_parameter', `kind is required (${CHANNEL_KINDS.join(', ')})`, { param: 'kind' });
  const baseUrl = (optString(body, 'base_url') ?? (kind === 'dashscope' ? DEFAULT_DASHSCOPE_BASE_URL : DEFAULT_KLING_BASE_URL)).replace(/\/+$/, '');
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('scheme');
    checkRegion('base_url', baseUrl, FOREIGN[kind]);
  } catch (e) {
    const msg = e instanceof ConfigError ? e.message : 'base_url must be an absolute http(s) URL';
    throw new GatewayError('invalid_parameter', msg, { param: 'base_url' });
  }
  let keys: ChannelKeys;
  if (kind === 'dashscope') {
    keys = { apiKey: reqString(body, 'api_key', { max: 500 }) };
  } else {
    keys = { accessKey: reqString(body, 'access_key', { max: 500 }), secretKey: reqString(body, 'secret_key', { max: 500 }) };
  }
  const models = optStringArray(body, 'models', { maxItems: 1000 }) ?? null;
  return { name, kind, baseUrl, keys, models, priority: optInt(body, 'priority', -1000, 1000), weight: optInt(body, 'weight', 1, 1000) };
}

export async function createChannel(deps: Pick<AppDeps, 'repos' | 'box' | 'channels'>, input: CreateChannelInput): Promise<ChannelRecord> {
  if (await deps.repos.channels.findByName(input.name)) {
    throw new GatewayError('conflict', `A channel named '${input.name}' already exists`, { param: 'name' });
  }
  const rec = await deps.repos.channels
    .create({
      id: newId('ch'),
      name: input.name,
      kind: input.kind,
      baseUrl: input.baseUrl,
      keyEnc: deps.box.seal(JSON.stringify(input.keys)),
      models: input.models,
      ...(input.priority !== undefined ? { priority: input.priority } : {}),
      ...(input.weight !== undefined ? { weight: input.weight } : {}),
    })
    .catch((e: unknown) => {
      // Two concurrent creates with one name: the unique index decides, the loser gets 409.
      throw isUniqueViolation(e) ? new GatewayError('conflict', `A channel named '${input.name}' already exists`, { param: 'name' }) : e;
    });
  await deps.channels.reload();
  return rec;
}

export function registerChannelRoutes(scope: FastifyInstance, deps: AppDeps): void {
  scope.post('/channels', async (req, reply) => {
    const input = parseCreateChannel(req.body);
    for (const m of input.models ?? []) {
      const r = deps.catalogue.resolve(m);
      if (!r) throw new GatewayError('invalid_parameter', `Unknown model: ${m}`, { param: 'models' });
      if (r.entry.upstream !== input.kind) throw new GatewayError('invalid_parameter', `Model ${m} is not served by a ${input.kind} channel`, { param: 'models' });
    }
    const rec = await createChannel(deps, input);
    deps.cluster.publish({ kind: 'channels-changed' });
    await deps.repos.audit.write({ actor: 'admin', action: 'channel.create', target: rec.id, detail: { name: rec.name, kind: rec.kind, models: rec.models }, requestId: req.id });
    return reply.code(201).send(publicChannel(rec));
  });

  scope.get('/channels', async () => ({ data: (await deps.repos.channels.list()).map(publicChannel) }));

  const setStatus = (status: 'enabled' | 'disabled') => async (req: { params: { id: string }; id: string }) => {
    const ok = await deps.repos.channels.setStatus(req.params.id, status);
    if (!ok) throw new GatewayError('not_found', 'Channel not found');
    await deps.channels.reload();
    deps.cluster.publish({ kind: 'channels-changed' });
    await deps.repos.audit.write({ actor: 'admin', action: status === 'enabled' ? 'channel.enable' : 'channel.disable', target: req.params.id, requestId: req.id });
    return publicChannel((await deps.repos.channels.get(req.params.id))!);
  };
  scope.delete<{ Params: { id: string } }>('/channels/:id', setStatus('disabled'));
  scope.post<{ Params: { id: string } }>('/channels/:id/disable', setStatus('disabled'));
  scope.post<{ Params: { id: string } }>('/channels/:id/enable', setStatus('enabled'));
}
