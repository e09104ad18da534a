// What the admin API shows of a channel's upstream account: per upstream model its limits in force and where each
// comes from (stated on a channel, read from the upstream, learnt from its refusals), what this instance admitted in
// the last minute, the calls in flight and waiting here (per customer), and any pause after an upstream refusal.
import type { Channel } from '../routing/channel-registry.ts';
import { upstreamAccountOf } from '../routing/upstream-account.ts';
import type { Capacity } from './capacity.ts';
import type { Limits } from './limits.ts';

export interface CapacityView {
  /** The upstream model (public names sending it share its limits). */
  model: string;
  limits: Limits;
  source: Record<'rpm' | 'tpm' | 'concurrency', 'set' | 'learnt' | 'none'>;
  stated: Limits;
  read: { rpm: number | null; tpm: number | null };
  learnt: { rpm: number | null; tpm: number | null };
  /** Admitted on this instance in the last 60 s. */
  used: { requests: number; tokens: number };
  in_flight: number;
  waiting: number;
  waiting_by_customer: Record<string, number>;
  /** ms since the epoch; null when not paused. */
  paused_until: number | null;
}

export function capacityView(
  capacity: Capacity,
  ch: Pick<Channel, 'kind' | 'upstreamAccount' | 'keys'>,
  now = Date.now(),
): CapacityView[] {
  const upstreamAccount = upstreamAccountOf(ch);
  return capacity
    .all()
    .filter((g) => g.upstreamAccount === upstreamAccount)
    .map((g) => {
      const o = capacity.origins(g);
      return {
        model: g.model,
        limits: g.effective(),
        source: g.sources(),
        stated: o.stated,
        read: { rpm: o.read.rpm, tpm: o.read.tpm },
        learnt: { rpm: g.learnt.rpm, tpm: g.learnt.tpm },
        used: g.use.lastMinute(now),
        in_flight: g.inFlight,
        waiting: g.waiting,
        waiting_by_customer: g.waitingByTenant(),
        paused_until: g.learnt.pausedUntil > now ? g.learnt.pausedUntil : null,
      };
    });
}
