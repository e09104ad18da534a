// Every upstream's declaration (data, from its own folder), in the order of upstreams.ts's list: what routing, the
// catalogue and config need of an upstream (its kind, keys, account key) without its clients and drivers, so those
// rooms import no adapter. test/adapters/upstreams.test.ts checks the two lists name the same upstreams.
import { dashscopeDeclared } from './dashscope/declaration.ts';
import { klingDeclared } from './kling/declaration.ts';
import type { UpstreamDeclaration } from './upstream-declaration.ts';

export const DECLARED_UPSTREAMS = [dashscopeDeclared, klingDeclared] as const satisfies readonly UpstreamDeclaration[];

/** A channel's kind: one of the upstreams'. */
export type ChannelKind = (typeof DECLARED_UPSTREAMS)[number]['kind'];

export const CHANNEL_KINDS: readonly ChannelKind[] = DECLARED_UPSTREAMS.map((u) => u.kind);

export function declarationOf(kind: string): UpstreamDeclaration {
  const u = DECLARED_UPSTREAMS.find((x) => x.kind === kind);
  if (!u) throw new Error(`no upstream of kind ${kind}`);
  return u;
}
