// The operator's channel check (POST /admin/channels/{id}/test): each upstream's own cheapest authenticated call
// (adapters/<upstream>/index.ts probe). Nothing is generated or billed.
import { GatewayError } from '../errors/gateway-error.ts';
import type { Channel } from '../routing/channel-registry.ts';
import type { Upstream, UpstreamClients } from './upstream.ts';

/** How long a check may wait for the upstream's answer. */
export const PROBE_TIMEOUT_MS = 10_000;

export class ChannelProber {
  constructor(
    private readonly upstreams: readonly Upstream[],
    private readonly clients: UpstreamClients,
  ) {}

  /**
   * Resolves with the upstream request id when the upstream accepted the channel's credentials; throws a GatewayError
   * otherwise.
   */
  probe(ch: Channel): Promise<{ upstreamRequestId: string | null }> {
    const u = this.upstreams.find((x) => x.kind === ch.kind);
    if (!u) return Promise.reject(new GatewayError('internal_error', `No upstream of kind ${ch.kind}`));
    return u.probe(this.clients, ch);
  }
}
