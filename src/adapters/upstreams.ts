// Every upstream the gateway speaks to, each declared in its own folder.
import type { ChannelKind } from '../store/repos/channels.ts';
import { dashscope } from './dashscope/index.ts';
import { kling } from './kling/index.ts';
import type { Upstream } from './upstream.ts';

export const UPSTREAMS: readonly Upstream[] = [dashscope, kling];

export function upstreamOf(kind: ChannelKind): Upstream {
  const u = UPSTREAMS.find((x) => x.kind === kind);
  if (!u) throw new Error(`no upstream of kind ${kind}`);
  return u;
}
