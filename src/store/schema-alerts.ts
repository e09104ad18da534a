// The operator alerts' tables (migration 019), part of the store's schema (schema.ts).
import type { Generated } from 'kysely';

/** An operator alert webhook (migration 019). */
export interface WebhooksTable {
  id: string;
  url: string;
  events: string; // JSON array of event types (alerts/events.ts)
  enabled: number; // 1 | 0
  secret: string; // sealed (SecretBox) whsec_… secret
  description: string | null;
  created_at: number;
  updated_at: number;
}

/** The alert outbox (migration 019): one row per webhook and event. */
export interface WebhookDeliveriesTable {
  id: string; // the webhook-id header
  webhook_id: string;
  event_id: string;
  event_type: string;
  payload: string; // JSON, signed as it is
  state: string; // 'pending' | 'delivered' | 'failed'
  attempts: Generated<number>;
  next_at: number;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

/** An alert decided once across instances (migration 019): the key names it, `state` is a breaker's last state. */
export interface AlertMarksTable {
  key: string;
  state: string | null;
  at: number;
}
