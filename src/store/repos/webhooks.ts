// Operator alert webhooks and their deliveries (migration 019). Lists are newest first, paged by (created_at, id).
import type { Kysely, Selectable } from 'kysely';
import { parseJson } from '../json.ts';
import type { Database, WebhookDeliveriesTable, WebhooksTable } from '../schema.ts';

export interface WebhookRecord {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  /** The sealed whsec_ secret (never shown after creation). */
  secretSealed: string;
  description: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface DeliveryRecord {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  payload: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAt: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  deliveredAt: number | null;
}

export interface After {
  createdAt: number;
  id: string;
}

function toWebhook(r: Selectable<WebhooksTable>): WebhookRecord {
  return {
    id: r.id,
    url: r.url,
    events: parseJson<string[]>(r.events) ?? [],
    enabled: Number(r.enabled) === 1,
    secretSealed: r.secret,
    description: r.description ?? null,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export function toDelivery(r: Selectable<WebhookDeliveriesTable>): DeliveryRecord {
  return {
    id: r.id,
    webhookId: r.webhook_id,
    eventId: r.event_id,
    eventType: r.event_type,
    payload: r.payload,
    state: r.state as DeliveryRecord['state'],
    attempts: Number(r.attempts),
    nextAt: Number(r.next_at),
    lastStatus: r.last_status === null ? null : Number(r.last_status),
    lastError: r.last_error ?? null,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    deliveredAt: r.delivered_at === null ? null : Number(r.delivered_at),
  };
}

export interface WebhookPatch {
  url?: string;
  events?: string[];
  enabled?: boolean;
  description?: string | null;
}

export class WebhooksRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async create(
    w: {
      id: string;
      url: string;
      events: string[];
      enabled: boolean;
      secretSealed: string;
      description: string | null;
    },
    now = Date.now(),
  ): Promise<WebhookRecord> {
    const row = {
      id: w.id,
      url: w.url,
      events: JSON.stringify(w.events),
      enabled: w.enabled ? 1 : 0,
      secret: w.secretSealed,
      description: w.description,
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('webhooks').values(row).execute();
    return toWebhook(row);
  }

  async get(id: string): Promise<WebhookRecord | null> {
    const r = await this.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toWebhook(r) : null;
  }

  /** Newest first; `limit` rows after `after`. */
  async list(limit: number, after?: After): Promise<WebhookRecord[]> {
    let q = this.db.selectFrom('webhooks').selectAll();
    if (after)
      q = q.where((eb) =>
        eb.or([
          eb('created_at', '<', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
        ]),
      );
    return (await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()).map(toWebhook);
  }

  /** The enabled webhooks (the emitter filters them by event type). */
  async enabled(db: Kysely<Database> = this.db): Promise<WebhookRecord[]> {
    return (await db.selectFrom('webhooks').selectAll().where('enabled', '=', 1).execute()).map(toWebhook);
  }

  async update(id: string, p: WebhookPatch, now = Date.now()): Promise<WebhookRecord | null> {
    const set = {
      ...(p.url !== undefined ? { url: p.url } : {}),
      ...(p.events !== undefined ? { events: JSON.stringify(p.events) } : {}),
      ...(p.enabled !== undefined ? { enabled: p.enabled ? 1 : 0 } : {}),
      ...(p.description !== undefined ? { description: p.description } : {}),
      updated_at: now,
    };
    await this.db.updateTable('webhooks').set(set).where('id', '=', id).execute();
    return this.get(id);
  }

  /** Removes the webhook and its deliveries (pending ones are not sent). */
  async delete(id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
      const r = await trx.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    });
  }

  async deliveries(webhookId: string, limit: number, after?: After): Promise<DeliveryRecord[]> {
    let q = this.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
    if (after)
      q = q.where((eb) =>
        eb.or([
          eb('created_at', '<', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
        ]),
      );
    return (await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()).map(toDelivery);
  }

  async delivery(webhookId: string, id: string): Promise<DeliveryRecord | null> {
    const r = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? toDelivery(r) : null;
  }

  /**
   * A delivery written already claimed for its first attempt (the operator's test event): its sender holds it until
   * `leaseUntil`, after which the rounds would take it if that sender died.
   */
  async insertClaimed(
    d: { id: string; webhookId: string; eventId: string; eventType: string; payload: string },
    leaseUntil: number,
    now = Date.now(),
  ): Promise<void> {
    await this.db
      .insertInto('webhook_deliveries')
      .values({
        id: d.id,
        webhook_id: d.webhookId,
        event_id: d.eventId,
        event_type: d.eventType,
        payload: d.payload,
        state: 'pending',
        attempts: 1,
        next_at: leaseUntil,
        last_status: null,
        last_error: null,
        created_at: now,
        updated_at: now,
        delivered_at: null,
      })
      .execute();
  }

  /**
   * A finished delivery (delivered or failed) claimed for one more attempt, by compare-and-set on its state and
   * attempts (two redeliveries at once: one wins). Returns the attempt's number, or null when it was not finished.
   */
  async reclaim(d: DeliveryRecord, leaseUntil: number, now = Date.now()): Promise<number | null> {
    const attempt = d.attempts + 1;
    const r = await this.db
      .updateTable('webhook_deliveries')
      .set({ state: 'pending', attempts: attempt, next_at: leaseUntil, delivered_at: null, updated_at: now })
      .where('id', '=', d.id)
      .where('state', '=', d.state)
      .where('state', '!=', 'pending')
      .where('attempts', '=', d.attempts)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1 ? attempt : null;
  }
}
