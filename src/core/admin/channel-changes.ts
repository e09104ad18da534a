// One channel as the operator reads, edits and checks it. Keys are write-only: a read shows only whether each is set
// (and the last four characters of an API or access key, to tell two keys apart); the breaker state is this
// instance's. An edit applies at once here and is announced to the other instances.
import { performance } from 'node:perf_hooks';
import type { Capacity } from '../../capacity/capacity.ts';
import { capacityView, type CapacityView } from '../../capacity/view.ts';
import type { ChannelProber } from '../../adapters/probe.ts';
import { upstreamOf } from '../../adapters/upstreams.ts';
import { reqString } from '../../contracts/fields.ts';
import { isObject } from '../../json/json.ts';
import { CHANNEL_KEY_FIELDS, channelPatchBody } from './bodies/channels.ts';
import type { ErrorCode } from '../../errors/codes.ts';
import { GatewayError, isGatewayError } from '../../errors/gateway-error.ts';
import { openChannel, type ChannelKeys } from '../../routing/channel-registry.ts';
import type { BreakerView, CircuitBreakers } from '../../routing/circuit-breaker.ts';
import type { ChannelModelLimits, ChannelPatch, ChannelRecord } from '../../store/repos/channels.ts';
import { isUniqueViolation } from '../../store/store-errors.ts';
import type { ChannelCost } from '../../vocabulary/price.ts';
import { parseCostField } from './channel-cost.ts';
import { parseAccount, parseBaseUrl, parseModelLimitsField, publicChannel } from './channels.ts';
import { audit, type Actor, type AdminDeps } from './deps.ts';

/** What a channel view and edit need beyond the admin deps: the breakers (absent in the CLI, which has none). */
export type ChannelViewDeps = Pick<AdminDeps, 'repos' | 'box'> & {
  readonly breakers?: CircuitBreakers;
  readonly capacity?: Capacity;
};

const mask = (v: string | undefined) => (v ? `****${v.length > 12 ? v.slice(-4) : ''}` : null);

/**
 * The keys as a read shows them: masked (a secret key only as set or not); `secrets` false (a viewer's read): every
 * key only as set or not, not even its last characters.
 */
export function maskedKeys(
  keys: ChannelKeys,
  kind: ChannelRecord['kind'],
  secrets = true,
): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const f of upstreamOf(kind).keyFields)
    out[f.field] = f.setOnly || !secrets ? (keys[f.key] ? '****' : null) : mask(keys[f.key]);
  return out;
}

export function channelView(
  deps: ChannelViewDeps,
  c: ChannelRecord,
  secrets = true,
): ReturnType<typeof publicChannel> & {
  keys: ReturnType<typeof maskedKeys>;
  breaker: BreakerView | null;
  capacity: CapacityView[] | null;
} {
  const opened = openChannel(c, deps.box);
  return {
    ...publicChannel(c),
    keys: maskedKeys(opened.keys, c.kind, secrets),
    breaker: deps.breakers ? deps.breakers.view(c.id) : null,
    capacity: deps.capacity ? capacityView(deps.capacity, opened) : null,
  };
}

export async function getChannel(deps: Pick<AdminDeps, 'repos'>, id: string): Promise<ChannelRecord> {
  const c = await deps.repos.channels.get(id);
  if (!c) throw new GatewayError('not_found', `Channel ${id} not found`);
  return c;
}

const PATCH_FIELDS = Object.keys((channelPatchBody.schema as { properties: object }).properties);

export interface ChannelEdit {
  name?: string;
  models?: string[] | null;
  priority?: number;
  weight?: number;
  enabled?: boolean;
  baseUrl?: string;
  keys?: ChannelKeys;
  account?: string | null;
  taskSlots?: number | null;
  modelLimits?: ChannelModelLimits | null;
  cost?: ChannelCost | null;
}

/**
 * Validate an edit for a channel of this kind (the kind itself cannot change: make another channel): the body's
 * schema (bodies/channels.ts), then what it cannot say.
 */
export function parseChannelEdit(body: unknown, kind: ChannelRecord['kind']): ChannelEdit {
  if (isObject(body) && 'kind' in body)
    throw new GatewayError('invalid_parameter', 'kind cannot be changed: add a channel of the other kind instead', {
      param: 'kind',
    });
  const o = channelPatchBody(body);
  if (Object.keys(o).length === 0)
    throw new GatewayError('invalid_request', `Nothing to change: send one or more of ${PATCH_FIELDS.join(', ')}`);
  const keyFields = upstreamOf(kind).keyFields;
  const own = keyFields.map((f) => f.field);
  for (const k of CHANNEL_KEY_FIELDS) {
    if (k in o && !own.includes(k))
      throw new GatewayError(
        'invalid_parameter',
        `${k} is not a key of a ${kind} channel (its keys: ${own.join(', ')})`,
        { param: k },
      );
  }
  const e: ChannelEdit = {};
  if (o.name !== undefined) e.name = reqString(o, 'name', { max: 200, name: true });
  if (o.models !== undefined) e.models = o.models;
  if (o.priority !== undefined) e.priority = o.priority;
  if (o.weight !== undefined) e.weight = o.weight;
  if (o.enabled !== undefined) e.enabled = o.enabled;
  if (o.base_url !== undefined) e.baseUrl = parseBaseUrl(o, kind);
  const account = parseAccount(o);
  if (account !== undefined) e.account = account;
  if (o.task_slots !== undefined) e.taskSlots = o.task_slots;
  const modelLimits = parseModelLimitsField(o);
  if (modelLimits !== undefined) e.modelLimits = modelLimits;
  const cost = parseCostField(o);
  if (cost !== undefined) e.cost = cost;
  const keys: ChannelKeys = {};
  for (const f of keyFields) if (f.field in o) keys[f.key] = reqString(o, f.field, { max: 500 });
  if (Object.keys(keys).length > 0) e.keys = keys;
  return e;
}

export async function updateChannel(
  deps: AdminDeps & { readonly breakers?: CircuitBreakers },
  by: Actor,
  id: string,
  edit: ChannelEdit,
): Promise<ChannelRecord> {
  const before = await getChannel(deps, id);
  for (const m of edit.models ?? []) {
    const r = deps.catalogue.resolve(m);
    if (!r) throw new GatewayError('invalid_parameter', `Unknown model: ${m}`, { param: 'models' });
    if (r.entry.upstream !== before.kind)
      throw new GatewayError('invalid_parameter', `Model ${m} is not served by a ${before.kind} channel`, {
        param: 'models',
      });
  }
  const patch: ChannelPatch = {
    ...(edit.name !== undefined ? { name: edit.name } : {}),
    ...(edit.models !== undefined ? { models: edit.models } : {}),
    ...(edit.priority !== undefined ? { priority: edit.priority } : {}),
    ...(edit.weight !== undefined ? { weight: edit.weight } : {}),
    ...(edit.enabled !== undefined ? { status: edit.enabled ? 'enabled' : 'disabled' } : {}),
    ...(edit.baseUrl !== undefined ? { baseUrl: edit.baseUrl } : {}),
    ...(edit.account !== undefined ? { account: edit.account } : {}),
    ...(edit.taskSlots !== undefined ? { taskSlots: edit.taskSlots } : {}),
    ...(edit.modelLimits !== undefined ? { modelLimits: edit.modelLimits } : {}),
    ...(edit.cost !== undefined ? { cost: edit.cost } : {}),
    // A partial key change (one of a pair) keeps the other key.
    ...(edit.keys
      ? { keyEnc: deps.box.seal(JSON.stringify({ ...openChannel(before, deps.box).keys, ...edit.keys })) }
      : {}),
  };
  await deps.repos.channels.update(id, patch).catch((e: unknown) => {
    throw isUniqueViolation(e)
      ? new GatewayError('conflict', `A channel named '${edit.name}' already exists`, { param: 'name' })
      : e;
  });
  // New credentials or a new address: past failures say nothing about them.
  if (edit.keys || edit.baseUrl !== undefined) deps.breakers?.reset(id);
  await deps.applyChange({ kind: 'channels-changed' });
  const after = await getChannel(deps, id);
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const k of [
    'name',
    'models',
    'priority',
    'weight',
    'status',
    'baseUrl',
    'account',
    'taskSlots',
    'modelLimits',
    'cost',
  ] as const) {
    if (JSON.stringify(before[k]) !== JSON.stringify(after[k])) changes[k] = { from: before[k], to: after[k] };
  }
  // Which keys were replaced, never their values.
  await audit(deps, by, 'channel.update', id, {
    changes,
    ...(edit.keys ? { keys_replaced: Object.keys(edit.keys) } : {}),
  });
  return after;
}

/** What a failed check says: a fixed text per error code (the upstream's own words may echo a key or an address). */
const CHECK_FAILURES: Partial<Record<ErrorCode, string>> = {
  upstream_auth_error: 'The upstream refused the channel credentials',
  upstream_permission_denied: 'The upstream denied the channel permission',
  upstream_rate_limited: 'The upstream is rate limiting this channel',
  upstream_timeout: 'The upstream did not answer in time',
  upstream_unreachable: 'The upstream could not be reached',
  upstream_unavailable: 'The upstream said it is temporarily unavailable',
  upstream_error: 'The upstream answered with an error',
  upstream_invalid_request: 'The upstream refused the check request',
  no_channel: 'The channel has no usable key',
};

export interface ChannelCheck {
  id: string;
  ok: boolean;
  latency_ms: number;
  error: { code: string; message: string } | null;
  upstream_request_id: string | null;
}

/**
 * One cheap authenticated upstream call with the channel's keys, enabled or not; it counts in no breaker and no bill.
 */
export async function testChannel(
  deps: Pick<AdminDeps, 'repos' | 'box'> & { readonly prober: ChannelProber },
  by: Actor,
  id: string,
): Promise<ChannelCheck> {
  const rec = await getChannel(deps, id);
  const started = performance.now();
  let out: Omit<ChannelCheck, 'latency_ms'>;
  try {
    const r = await deps.prober.probe(openChannel(rec, deps.box));
    out = { id, ok: true, error: null, upstream_request_id: r.upstreamRequestId };
  } catch (e) {
    const code: ErrorCode = isGatewayError(e) ? e.code : 'upstream_error';
    out = {
      id,
      ok: false,
      error: { code, message: CHECK_FAILURES[code] ?? 'The check failed' },
      upstream_request_id: null,
    };
  }
  const result = { ...out, latency_ms: Math.round(performance.now() - started) };
  await audit(deps, by, 'channel.test', id, { ok: result.ok, ...(result.error ? { code: result.error.code } : {}) });
  return result;
}
