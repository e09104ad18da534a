// Channel choice for one call. Today: the best (first) enabled channel serving the model; failover
// and breakers extend this one function, so every capability routes the same way.
import type { ModelEntry } from '../catalogue/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Channel, ChannelRegistry } from './channel-registry.ts';

export function pickChannel(channels: Pick<ChannelRegistry, 'forModel'>, entry: ModelEntry): Channel {
  const c = channels.forModel(entry)[0];
  if (!c) throw new GatewayError('no_channel', `No upstream channel is available for model '${entry.id}'`);
  return c;
}
