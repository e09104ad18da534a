// What the admin API shows of a channel's upstream account: per model its limits in force and where they come from,
// the calls in flight (this instance), the calls waiting per customer and any pause after an upstream refusal.
import type { Channel } from '../routing/channel-registry.ts';
import { accountOf } from '../routing/upstream-account.ts';
import type { Capacity } from './capacity.ts';
import type { Limits } from './limits.ts';

export interface CapacityView {
  model: string;
  limits: Limits;
  source: Record<'rpm' | 'tpm' | 'concurrency', 'set' | 'learnt' | 'none'>;
  in_flight: number;
  waiting: number;
  waiting_by_customer: Record<string, number>;
  /** ms since the epoch; null when not paused. */
  paused_until: number | null;
}

export function capacityView(capacity: Capacity, ch: Pick<Channel, 'kind' | 'account' | 'keys'>, now = Date.now()): CapacityView[] {
  const account = accountOf(ch);
  return capacity
    .all()
    .filter((g) => g.account === account)
    .map((g) => ({
      model: g.model,
      limits: g.effective(),
      source: g.sources(),
      in_flight: g.inFlight,
      waiting: g.waiting,
      waiting_by_customer: g.waitingByTenant(),
      paused_until: g.learnt.pausedUntil > now ? g.learnt.pausedUntil : null,
    }));
}
