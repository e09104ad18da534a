// Every upstream the gateway speaks to, each declared in its own folder: the one list a new upstream joins. Channel
// kinds, the admin API's and the OpenAPI document's kinds and key fields, result hosts and drivers derive from it.
import { dashscope } from './dashscope/index.ts';
import { kling } from './kling/index.ts';
import type { Upstream } from './upstream.ts';
import type { ChannelKind } from './upstream-kinds.ts';

export const UPSTREAMS = [dashscope, kling] as const satisfies readonly Upstream<ChannelKind>[];

export { CHANNEL_KINDS, type ChannelKind } from './upstream-kinds.ts';

export function upstreamOf(kind: string): Upstream {
  const u = UPSTREAMS.find((x) => x.kind === kind);
  if (!u) throw new Error(`no upstream of kind ${kind}`);
  return u;
}
