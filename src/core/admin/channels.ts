// Channels (upstream accounts) as the operator manages them (admin API and CLI alike), and the ones the gateway
// provisions itself at start: the demo simulator's and those for keys given in the environment.
import { parseModelLimits } from '../../capacity/limits.ts';
import type { ChannelModelLimits } from '../../store/repos/channels.ts';
import { echo } from '../../errors/echo.ts';
import { newId } from '../../auth/token-secret.ts';
import { CHANNEL_KINDS, type ChannelKind, upstreamOf } from '../../adapters/upstreams.ts';
import { ConfigError, type Config } from '../../config/config.ts';
import { checkRegion, hasEnvKeys } from '../../config/upstream-env.ts';
import { optString, reqString } from '../../contracts/fields.ts';
import { CHANNEL_KEY_FIELDS, createChannelBody } from './bodies/channels.ts';
import type { ChannelCost } from '../../vocabulary/price.ts';
import { parseCostField } from './channel-cost.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ChannelKeys } from '../../routing/channel-registry.ts';
import type { ChannelRecord } from '../../store/repos/channels.ts';
import { isUniqueViolation } from '../../store/store-errors.ts';
import { decodeCursor, encodeCursor } from '../../contracts/cursor.ts';
import { audit, type Actor, type AdminDeps } from './deps.ts';
import { pageOf, type Page } from './lists.ts';

type ChannelDeps = Pick<AdminDeps, 'repos' | 'box' | 'applyChange'>;

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
    account: c.account,
    task_slots: c.taskSlots,
    model_limits: c.modelLimits,
    ...(c.cost ? { cost: c.cost } : {}),
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
  account?: string | null | undefined;
  taskSlots?: number | null | undefined;
  modelLimits?: ChannelModelLimits | null | undefined;
  cost?: ChannelCost | null | undefined;
}

export function parseBaseUrl(body: Record<string, unknown>, kind: string): string {
  const upstream = upstreamOf(kind);
  const baseUrl = (optString(body, 'base_url') ?? upstream.defaultBaseUrl).replace(/\/+$/, '');
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('scheme');
    // Keys go in the key fields (write-only, masked); a URL is shown in channel views and audit lines.
    if (u.username || u.password)
      throw new ConfigError('base_url must not carry credentials; put keys in the key fields');
    // The same region rule as the start-up configuration: one domestic region, never mixed.
    checkRegion('base_url', baseUrl, upstream.foreignHosts);
  } catch (e) {
    const msg = e instanceof ConfigError ? e.message : 'base_url must be an absolute http(s) URL';
    throw new GatewayError('invalid_parameter', msg, { param: 'base_url' });
  }
  return baseUrl;
}

/** `account`: the upstream account's name (channels naming one account share its limits); null = the key is its own. */
export function parseAccount(body: Record<string, unknown>): string | null | undefined {
  if (!('account' in body)) return undefined;
  if (body.account === null) return null;
  const v = reqString(body, 'account', { max: 100 });
  if (!/^[\w.@:-]+$/.test(v))
    throw new GatewayError('invalid_parameter', 'account may hold letters, digits and . _ - : @ only', {
      param: 'account',
    });
  return v;
}

/** `model_limits`: the account's limits per model, stated ({"<model>"|"*": {rpm, tpm, concurrency}}); null clears. */
export function parseModelLimitsField(body: Record<string, unknown>): ChannelModelLimits | null | undefined {
  if (!('model_limits' in body)) return undefined;
  const r = parseModelLimits(body.model_limits);
  if ('error' in r) throw new GatewayError('invalid_parameter', r.error, { param: 'model_limits' });
  return r.value;
}

/** The body's schema (bodies/channels.ts) first; then what it cannot say: this kind's keys, set, and no other's. */
export function parseCreateChannel(input: unknown): CreateChannelInput {
  const body = createChannelBody(input);
  const name = reqString(body, 'name', { max: 200, name: true });
  const kind = body.kind;
  const keyFields = upstreamOf(kind).keyFields;
  const own = keyFields.map((f) => f.field);
  // Another kind's key would be stored and never used: refused, as an unknown field.
  for (const k of CHANNEL_KEY_FIELDS)
    if (k in body && !own.includes(k))
      throw new GatewayError('invalid_parameter', `Unknown field: ${k} (a ${kind} channel's keys: ${own.join(', ')})`, {
        param: k,
      });
  const baseUrl = parseBaseUrl(body, kind);
  const keys: ChannelKeys = {};
  for (const f of keyFields) keys[f.key] = reqString(body, f.field, { max: 500 });
  return {
    name,
    kind,
    baseUrl,
    keys,
    models: body.models ?? null,
    priority: body.priority,
    weight: body.weight,
    account: parseAccount(body),
    taskSlots: body.task_slots,
    modelLimits: parseModelLimitsField(body),
    cost: parseCostField(body),
  };
}

/** Store a new channel (keys sealed) and apply it. No audit line (start-up provisioning and tests); see addChannel. */
export async function createChannel(deps: ChannelDeps, input: CreateChannelInput): Promise<ChannelRecord> {
  const taken = () => new GatewayError('conflict', `A channel named '${input.name}' already exists`, { param: 'name' });
  if (await deps.repos.channels.findByName(input.name)) throw taken();
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
      ...(input.account !== undefined ? { account: input.account } : {}),
      ...(input.taskSlots !== undefined ? { taskSlots: input.taskSlots } : {}),
      ...(input.modelLimits !== undefined ? { modelLimits: input.modelLimits } : {}),
      ...(input.cost !== undefined ? { cost: input.cost } : {}),
    })
    .catch((e: unknown) => {
      // Two concurrent creates with one name: the unique index decides, the loser gets 409.
      throw isUniqueViolation(e) ? taken() : e;
    });
  await deps.applyChange({ kind: 'channels-changed' });
  return rec;
}

/** The admin action: every listed model must exist and be served by this kind of upstream; then create and audit. */
export async function addChannel(deps: AdminDeps, by: Actor, input: CreateChannelInput): Promise<ChannelRecord> {
  for (const m of input.models ?? []) {
    const r = deps.catalogue.resolve(m);
    if (!r) throw new GatewayError('invalid_parameter', `Unknown model: ${echo(m)}`, { param: 'models' });
    if (r.entry.upstream !== input.kind)
      throw new GatewayError('invalid_parameter', `Model ${m} is not served by a ${input.kind} channel`, {
        param: 'models',
      });
  }
  const rec = await createChannel(deps, input);
  await audit(deps, by, 'channel.create', rec.id, { name: rec.name, kind: rec.kind, models: rec.models });
  return rec;
}

export function listChannels(deps: Pick<AdminDeps, 'repos'>): Promise<ChannelRecord[]> {
  return deps.repos.channels.list();
}

/** One page of channels, oldest first; `cursor` is the previous page's next_cursor. */
export async function channelPage(
  deps: Pick<AdminDeps, 'repos'>,
  limit: number,
  cursor?: string,
): Promise<Page<ChannelRecord>> {
  const after = cursor === undefined ? undefined : decodeCursor(cursor, ['n', 's']);
  const rows = await deps.repos.channels.page(
    limit + 1,
    after && { createdAt: after[0] as number, id: after[1] as string },
  );
  const { data, more, next } = pageOf(rows, limit, (c) => encodeCursor([c.createdAt, c.id]));
  return { data, has_more: more, ...(next !== null ? { next_cursor: next } : {}) };
}

/** Enable or disable (a channel is never deleted: it stays for the audit trail and the ledger). */
export async function setChannelStatus(
  deps: AdminDeps,
  by: Actor,
  id: string,
  status: 'enabled' | 'disabled',
): Promise<ChannelRecord> {
  if (!(await deps.repos.channels.setStatus(id, status)))
    throw new GatewayError('not_found', `Channel ${id} not found`);
  await deps.applyChange({ kind: 'channels-changed' });
  await audit(deps, by, status === 'enabled' ? 'channel.enable' : 'channel.disable', id);
  return (await deps.repos.channels.get(id))!;
}

/** Make sure a named channel exists with these settings (created, or updated and enabled). */
export async function ensureChannel(
  deps: ChannelDeps,
  name: string,
  kind: ChannelKind,
  baseUrl: string,
  keys: ChannelKeys,
): Promise<void> {
  const existing = await deps.repos.channels.findByName(name);
  if (!existing) {
    try {
      await createChannel(deps, { name, kind, baseUrl, keys, models: null });
      return;
    } catch (e) {
      // Instances starting together on one database: another one created it first; update that one instead.
      if (!(e instanceof GatewayError && e.code === 'conflict')) throw e;
      return ensureChannel(deps, name, kind, baseUrl, keys);
    }
  }
  await deps.repos.channels.update(existing.id, { baseUrl, keyEnc: deps.box.seal(JSON.stringify(keys)) });
  await deps.repos.channels.setStatus(existing.id, 'enabled');
  await deps.applyChange({ kind: 'channels-changed' });
}

export async function disableChannelsNamed(deps: ChannelDeps, prefix: string): Promise<void> {
  for (const c of await deps.repos.channels.list()) {
    if (c.name.startsWith(prefix) && c.status === 'enabled') await deps.repos.channels.setStatus(c.id, 'disabled');
  }
  await deps.applyChange({ kind: 'channels-changed' });
}

/** Channels for the upstream keys given in the environment. */
export async function provisionEnvChannels(deps: ChannelDeps, config: Config): Promise<void> {
  for (const kind of CHANNEL_KINDS) {
    const u = config.upstreams[kind];
    if (hasEnvKeys(u)) await ensureChannel(deps, `env-${kind}`, kind, u.baseUrl, u.keys);
  }
}
