// The channel kinds an operator may add, as the console's channel form needs them: each upstream's default base URL,
// the key fields it declares (adapters/<upstream>/declaration.ts) and the catalogue's models it serves. Read-only data:
// no key values.
import { DECLARED_UPSTREAMS } from '../../adapters/upstream-kinds.ts';
import type { AdminDeps } from './deps.ts';

export interface ChannelKindView {
  kind: string;
  default_base_url: string;
  /** In the order a create body takes them; `secret`: shown back only as set or not, never masked characters. */
  key_fields: Array<{ field: string; secret: boolean }>;
  /** The catalogue's models a channel of this kind serves (a channel with no models listed serves them all). */
  models: string[];
}

export function channelKinds(deps: Pick<AdminDeps, 'catalogue'>): ChannelKindView[] {
  const entries = deps.catalogue.entries();
  return DECLARED_UPSTREAMS.map((u) => ({
    kind: u.kind,
    default_base_url: u.defaultBaseUrl,
    key_fields: u.keyFields.map((f) => ({ field: f.field, secret: f.setOnly === true })),
    models: entries
      .filter((e) => e.upstream === u.kind)
      .map((e) => e.id)
      .sort(),
  }));
}
