// The upstream account a channel's key belongs to. Real accounts enforce their limits per account, shared by every key
// of it (task queries per second; parallel tasks per model version), so the gateway keeps them per account too.
// An operator names the account on the channel; unnamed, a key is its own account (which key: the upstream's folder).
import { createHash } from 'node:crypto';
import type { ChannelKeys } from '../adapters/upstream-declaration.ts';
import { declarationOf } from '../adapters/upstream-kinds.ts';

/** Stable account key: `<kind>:<operator's name>`, or `<kind>:key-<hash of the key>` (the key itself never appears). */
export function upstreamAccountOf(channel: {
  kind: string;
  upstreamAccount: string | null;
  keys: ChannelKeys;
}): string {
  if (channel.upstreamAccount) return `${channel.kind}:${channel.upstreamAccount}`;
  const key = channel.keys[declarationOf(channel.kind).accountKey] ?? '';
  return `${channel.kind}:key-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}
