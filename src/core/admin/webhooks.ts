// Operator alert webhooks (admin API and CLI alike): a target URL, the events it wants, and a Standard Webhooks secret
// shown once at creation. Targets follow the client callbacks' rule: loopback and private addresses are refused
// unless TOLLWAY_ALLOW_PRIVATE_NETWORK is set (names resolving to them are refused again at delivery).
import { newCallbackSecret } from '../../auth/callback-secret.ts';
import { newId } from '../../auth/token-secret.ts';
import type { AlertEventType } from '../../alerts/events.ts';
import { decodeCursor, encodeCursor } from '../../contracts/cursor.ts';
import { localTargetReason, readHttpUrl } from '../../contracts/vidx.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { forbiddenAddressReason } from '../../net/address-policy.ts';
import type { After, DeliveryRecord, WebhookPatch, WebhookRecord } from '../../store/repos/webhooks.ts';
import { deliverySubject } from './webhook-delivery-view.ts';
import { audit, type Actor, type AdminDeps } from './deps.ts';
import { pageOf, type Page } from './lists.ts';
import { createWebhookBody, webhookPatchBody } from './bodies/webhooks.ts';

export type WebhookDeps = Pick<AdminDeps, 'repos' | 'box'>;

export interface WebhookInput {
  url: string;
  events: AlertEventType[];
  enabled: boolean;
  description: string | null;
}

const FIELDS = Object.keys(webhookPatchBody.schema.properties);

export function publicWebhook(w: WebhookRecord) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    enabled: w.enabled,
    description: w.description,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  };
}

export function publicDelivery(d: DeliveryRecord) {
  const payload = JSON.parse(d.payload) as unknown;
  return {
    id: d.id,
    event_id: d.eventId,
    event_type: d.eventType,
    state: d.state,
    attempts: d.attempts,
    last_status: d.lastStatus,
    last_error: d.lastError,
    next_try_at: d.state === 'pending' ? d.nextAt : null,
    delivered_at: d.deliveredAt,
    created_at: d.createdAt,
    ...deliverySubject(d.eventType, payload),
    payload,
  };
}

function parseUrl(v: string, allowPrivate: boolean): string {
  if (v.trim() === '') throw new GatewayError('missing_parameter', 'url is required', { param: 'url' });
  const u = readHttpUrl(v, 'url');
  if (u.username || u.password)
    throw new GatewayError('invalid_parameter', 'url must not contain credentials', { param: 'url' });
  const why = allowPrivate ? null : localTargetReason(u, forbiddenAddressReason);
  if (why)
    throw new GatewayError(
      'invalid_parameter',
      `url must be a public address (not a ${why}); set TOLLWAY_ALLOW_PRIVATE_NETWORK to allow it`,
      { param: 'url' },
    );
  return v;
}

/** The schema (bodies/webhooks.ts) has checked the shapes; what is left is the URL's rules. */
export function parseCreateWebhook(body: unknown, allowPrivate: boolean): WebhookInput {
  const o = createWebhookBody(body);
  return {
    url: parseUrl(o.url, allowPrivate),
    events: [...new Set(o.events)],
    enabled: o.enabled ?? true,
    description: o.description ?? null,
  };
}

export function parseWebhookPatch(body: unknown, allowPrivate: boolean): WebhookPatch {
  const o = webhookPatchBody(body);
  if (Object.keys(o).length === 0)
    throw new GatewayError('invalid_request', `Nothing to change: send one or more of ${FIELDS.join(', ')}`);
  return {
    ...(o.url !== undefined ? { url: parseUrl(o.url, allowPrivate) } : {}),
    ...(o.events !== undefined ? { events: [...new Set(o.events)] } : {}),
    ...(o.enabled !== undefined ? { enabled: o.enabled } : {}),
    ...('description' in o ? { description: o.description ?? null } : {}),
  };
}

/** A new webhook and its `whsec_…` secret: the only time the secret is shown. */
export async function createWebhook(
  deps: WebhookDeps,
  by: Actor,
  input: WebhookInput,
): Promise<{ record: WebhookRecord; secret: string }> {
  const secret = newCallbackSecret();
  const record = await deps.repos.webhooks.create({
    id: newId('wh'),
    url: input.url,
    events: input.events,
    enabled: input.enabled,
    secretSealed: deps.box.seal(secret),
    description: input.description,
  });
  await audit(deps, by, 'webhook.create', record.id, {
    url: record.url,
    events: record.events,
    enabled: record.enabled,
  });
  return { record, secret };
}

export async function getWebhook(deps: WebhookDeps, id: string): Promise<WebhookRecord> {
  const w = await deps.repos.webhooks.get(id);
  if (!w) throw new GatewayError('not_found', `No webhook ${id}`);
  return w;
}

export async function updateWebhook(
  deps: WebhookDeps,
  by: Actor,
  id: string,
  patch: WebhookPatch,
): Promise<WebhookRecord> {
  await getWebhook(deps, id);
  const w = (await deps.repos.webhooks.update(id, patch))!;
  await audit(deps, by, 'webhook.update', id, { ...patch });
  return w;
}

export async function deleteWebhook(deps: WebhookDeps, by: Actor, id: string): Promise<WebhookRecord> {
  const w = await getWebhook(deps, id);
  await deps.repos.webhooks.delete(id);
  await audit(deps, by, 'webhook.delete', id, { url: w.url });
  return w;
}

function after(cursor: string | undefined): After | undefined {
  if (cursor === undefined) return undefined;
  const [createdAt, id] = decodeCursor(cursor, ['n', 's']);
  return { createdAt: createdAt as number, id: id as string };
}

const cursorOf = (r: { createdAt: number; id: string }) => encodeCursor([r.createdAt, r.id]);

export async function webhookPage(
  deps: WebhookDeps,
  limit: number,
  cursor?: string,
): Promise<Page<ReturnType<typeof publicWebhook>>> {
  const { data, more, next } = pageOf(await deps.repos.webhooks.list(limit + 1, after(cursor)), limit, cursorOf);
  return { data: data.map(publicWebhook), has_more: more, ...(next !== null ? { next_cursor: next } : {}) };
}

export async function deliveryPage(
  deps: WebhookDeps,
  webhookId: string,
  limit: number,
  cursor?: string,
): Promise<Page<ReturnType<typeof publicDelivery>>> {
  await getWebhook(deps, webhookId);
  const { data, more, next } = pageOf(
    await deps.repos.webhooks.deliveries(webhookId, limit + 1, after(cursor)),
    limit,
    cursorOf,
  );
  return { data: data.map(publicDelivery), has_more: more, ...(next !== null ? { next_cursor: next } : {}) };
}
