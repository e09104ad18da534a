// An admin change, made on this instance or announced by another, applied to this instance's caches.
import type { ClusterEvent } from '../../cluster/cluster-bus.ts';
import { loadCatalogue } from '../../pricing/catalogue-source.ts';
import type { GatewayDeps } from '../deps.ts';

export async function applyChangeHere(deps: GatewayDeps, e: ClusterEvent): Promise<void> {
  if (e.kind === 'token-revoked') deps.tokenAuth.invalidateHash(e.hash);
  else if (e.kind === 'token-changed') {
    for (const h of e.hashes) deps.tokenAuth.invalidateHash(h);
    // A quota lowered stops the token's calls at once: none reserves from an allowance placed under the old one.
    if (e.id !== undefined) deps.meter.retireAllowances({ tokenId: e.id });
  } else if (e.kind === 'account-changed') {
    deps.tokenAuth.invalidateAccount(e.id);
    deps.meter.retireAllowances({ accountId: e.id });
  } else if (e.kind === 'price-groups-changed') await deps.priceGroups.reload();
  else if (e.kind === 'channels-changed') await deps.channels.reload();
  // GatewayDeps.catalogue is reassigned: readers take deps.catalogue at call time (the meter through a getter).
  else deps.catalogue = await loadCatalogue(deps.store.db, deps.config.catalogueFile, deps.catalogue);
}
