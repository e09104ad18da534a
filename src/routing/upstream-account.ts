// The upstream account a channel's key belongs to. Real accounts enforce their limits per account, shared by every key
// of it (DashScope: task queries per second; Kling: parallel tasks per model version), so the gateway keeps them per
// account too. An operator names the account on the channel; unnamed, a key is its own account.
import { createHash } from 'node:crypto';
import type { Channel } from './channel-registry.ts';

/** Stable account key: `<kind>:<operator's name>`, or `<kind>:key-<hash of the key>` (the key itself never appears). */
export function accountOf(channel: Pick<Channel, 'kind' | 'account' | 'keys'>): string {
  if (channel.account) return `${channel.kind}:${channel.account}`;
  const key = channel.kind === 'kling' ? (channel.keys.accessKey ?? '') : (channel.keys.apiKey ?? '');
  return `${channel.kind}:key-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}
