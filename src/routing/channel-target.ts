// The one rule for reaching an API-key upstream through a channel: its base URL and key, or no_channel when the
// channel holds no key. One frozen target per channel object (a reload makes new channel objects).
import type { UpstreamTarget } from '../adapters/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Channel } from './channel-registry.ts';

const targets = new WeakMap<Channel, UpstreamTarget>();

export function apiKeyTarget(ch: Channel): UpstreamTarget {
  let t = targets.get(ch);
  if (t === undefined) {
    if (!ch.keys.apiKey) throw new GatewayError('no_channel', 'The upstream channel has no API key configured');
    t = Object.freeze({ baseUrl: ch.baseUrl, apiKey: ch.keys.apiKey });
    targets.set(ch, t);
  }
  return t;
}
