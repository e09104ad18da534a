// The events an operator's webhook may ask for, and the body each delivery carries (Standard Webhooks:
// `{type, timestamp, data}`; the `webhook-id` header is the delivery's id).

export const ALERT_EVENTS = [
  'spend.threshold',
  'breaker.opened',
  'breaker.closed',
  'tasks.failure_rate',
  'hold.reaped',
  'limit.reached',
] as const;
export type AlertEventType = (typeof ALERT_EVENTS)[number];

/** The operator's test event (POST /admin/webhooks/{id}/test): sent on demand to one webhook, never subscribed to. */
export const TEST_EVENT = 'webhook.test';
export type DeliveredEventType = AlertEventType | typeof TEST_EVENT;

/** Who spends: a client token, or (with customer accounts) an account. */
export type HolderKind = 'token' | 'account';
/** What is spent against: the lifetime quota, or a budget that resets each period. */
export type LimitKind = 'quota' | 'budget';

/**
 * The seam every spending limit reports through: its holder's spending now, against its limit in a period. The
 * highest threshold (50/80/100 %) passed is announced, once per (holder, limit, period) across instances. `periodKey` names the period: for a budget its start (`2026-11`), for a quota the quota's
 * amount (a top-up starts a new one).
 */
export interface SpendLevel {
  holderKind: HolderKind;
  holderId: string;
  limitKind: LimitKind;
  periodKey: string;
  spent: number;
  limit: number;
  /** A budget's period (day, week, month) and its bounds (ms): the payload's ISO dates. */
  budgetPeriod?: string;
  periodStart?: number;
  periodEnd?: number;
}

/** The shares of a quota or budget whose crossing is announced, in percent. */
export const SPEND_THRESHOLDS = [50, 80, 100] as const;

export interface AlertEvent {
  /** Unique per event: every webhook's delivery of it names it (`data.event_id`). */
  id: string;
  type: DeliveredEventType;
  at: number;
  data: Record<string, unknown>;
}

/** The signed body: what the receiver gets, byte for byte. */
export function eventBody(e: AlertEvent): string {
  return JSON.stringify({ type: e.type, timestamp: new Date(e.at).toISOString(), data: { event_id: e.id, ...e.data } });
}
