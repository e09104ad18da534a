// What fired a delivery, read from the payload it carries: the holder (a token or an account, its id and its name as
// the event named it) and the threshold (`80 %`, `limit reached`…), so a list of deliveries says who and what without
// opening each payload. Events without a holder (a breaker, the test event) have null there.
import { isObject } from '../../json/json.ts';

export interface DeliveryHolder {
  kind: 'token' | 'account';
  id: string;
  name: string | null;
}

export interface DeliverySubject {
  holder: DeliveryHolder | null;
  threshold: string | null;
}

function holderOf(data: Record<string, unknown>): DeliveryHolder | null {
  const h = data.holder;
  if (isObject(h) && (h.kind === 'token' || h.kind === 'account') && typeof h.id === 'string')
    return { kind: h.kind, id: h.id, name: typeof h.name === 'string' ? h.name : null };
  // hold.reaped names the token whose hold was released.
  if (typeof data.token_id === 'string') return { kind: 'token', id: data.token_id, name: null };
  return null;
}

function thresholdOf(type: string, data: Record<string, unknown>): string | null {
  if (type === 'spend.threshold' && typeof data.threshold === 'number') return `${data.threshold} %`;
  if (type === 'limit.reached') return 'limit reached';
  if (type === 'tasks.failure_rate' && typeof data.threshold_percent === 'number')
    return `${data.threshold_percent} % of tasks failed`;
  return null;
}

export function deliverySubject(type: string, payload: unknown): DeliverySubject {
  const data = isObject(payload) && isObject(payload.data) ? payload.data : {};
  return { holder: holderOf(data), threshold: thresholdOf(type, data) };
}
