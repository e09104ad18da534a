// The events an operator's webhook may ask for, and the body each delivery carries (Standard Webhooks:
// `{type, timestamp, data}`; the `webhook-id` header is the delivery's id).

export const ALERT_EVENTS = [
  'spend.threshold',
  'breaker.opened',
  'breaker.closed',
  'tasks.failure_rate',
  'hold.reaped',
] as const;
export type AlertEventType = (typeof ALERT_EVENTS)[number];

/** The shares of a quota or budget whose crossing is announced, in percent. */
export const SPEND_THRESHOLDS = [50, 80, 100] as const;

export interface AlertEvent {
  /** Unique per event: every webhook's delivery of it names it (`data.event_id`). */
  id: string;
  type: AlertEventType;
  at: number;
  data: Record<string, unknown>;
}

/** The signed body: what the receiver gets, byte for byte. */
export function eventBody(e: AlertEvent): string {
  return JSON.stringify({ type: e.type, timestamp: new Date(e.at).toISOString(), data: { event_id: e.id, ...e.data } });
}
