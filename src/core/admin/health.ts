// The console overview's health panel: each channel's breaker (this instance's view) and its recent traffic from the
// request log (every instance's), and the open async tasks by state (database-wide).
import type { CircuitBreakers, BreakerView } from '../../routing/circuit-breaker.ts';
import type { ChannelsRepo } from '../../store/repos/channels.ts';
import type { GaugesRepo } from '../../store/repos/gauges.ts';
import type { RequestStatsRepo } from '../../store/repos/request-stats.ts';

/** How far back "recent" reaches for a channel's requests, errors and latency. */
export const RECENT_MS = 5 * 60_000;

export interface HealthDeps {
  breakers: CircuitBreakers;
  repos: {
    channels: Pick<ChannelsRepo, 'list'>;
    requestStats: Pick<RequestStatsRepo, 'channels'>;
    gauges: Pick<GaugesRepo, 'openTasks'>;
  };
}

export interface ChannelHealth {
  id: string;
  name: string;
  kind: string;
  enabled: boolean;
  breaker: BreakerView;
  recent: { requests: number; errors: number; error_rate: number; mean_latency_ms: number | null };
}

export async function gatewayHealth(
  deps: HealthDeps,
  now = Date.now(),
): Promise<{ recent_ms: number; channels: ChannelHealth[]; open_tasks: Record<string, number> }> {
  const [channels, traffic, open] = await Promise.all([
    deps.repos.channels.list(),
    deps.repos.requestStats.channels(now - RECENT_MS),
    deps.repos.gauges.openTasks(),
  ]);
  const byChannel = new Map(traffic.map((t) => [t.channelId, t]));
  return {
    recent_ms: RECENT_MS,
    channels: channels.map((c) => {
      const t = byChannel.get(c.id);
      return {
        id: c.id,
        name: c.name,
        kind: c.kind,
        enabled: c.status === 'enabled',
        breaker: deps.breakers.view(c.id),
        recent: t
          ? {
              requests: t.requests,
              errors: t.errors,
              error_rate: t.requests > 0 ? t.errors / t.requests : 0,
              mean_latency_ms: t.meanLatencyMs,
            }
          : { requests: 0, errors: 0, error_rate: 0, mean_latency_ms: null },
      };
    }),
    open_tasks: Object.fromEntries(open.byState),
  };
}
