// The live capacity of a channel's upstream account (GET /admin/channels/{id}/capacity): per upstream model its
// limits and where they come from, this instance's use over the last minute, calls in flight and waiting here. What
// the console's channel page polls; the channel read carries the same under `capacity`.
import type { Capacity } from '../../capacity/capacity.ts';
import { capacityView, type CapacityView } from '../../capacity/view.ts';
import { openChannel } from '../../routing/channel-registry.ts';
import { upstreamAccountOf } from '../../routing/upstream-account.ts';
import { getChannel } from './channel-changes.ts';
import type { AdminDeps } from './deps.ts';

export interface ChannelCapacity {
  channel_id: string;
  /** The upstream account the channel's key belongs to, as the gateway keys it (never the key itself). */
  account: string;
  /** Capacity is being kept (some account x model has a limit). */
  active: boolean;
  data: CapacityView[];
}

export async function channelCapacity(
  deps: Pick<AdminDeps, 'repos' | 'box'> & { readonly capacity: Capacity },
  id: string,
): Promise<ChannelCapacity> {
  const ch = openChannel(await getChannel(deps, id), deps.box);
  return {
    channel_id: ch.id,
    account: upstreamAccountOf(ch),
    active: deps.capacity.active(),
    data: capacityView(deps.capacity, ch),
  };
}
