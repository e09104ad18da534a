// Which public models a caller may use: the token's allow-list, the catalogue, and the channels that serve them.
import { echo } from '../errors/echo.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { ModelEntry, ResolvedModel } from '../catalogue/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { isAllowed, isVisible, visibleModels, type ChannelRegistry } from '../routing/channel-registry.ts';
import { principalOf, type HasState } from './call.ts';

export interface ModelAccessDeps {
  readonly catalogue: Catalogue;
  readonly channels: ChannelRegistry;
}

const notFound = (name: string) =>
  new GatewayError('model_not_found', `The model '${echo(name)}' does not exist or you do not have access to it`, {
    param: 'model',
  });

/** Resolve a public model name the caller may use, or throw model_not_found (unknown and invisible look alike). */
export function resolveVisibleModel(deps: ModelAccessDeps, call: HasState, name: unknown): ResolvedModel {
  if (typeof name !== 'string' && name !== undefined && name !== null)
    throw new GatewayError('invalid_parameter', 'model must be a string', { param: 'model' });
  if (typeof name !== 'string' || name.trim() === '')
    throw new GatewayError('missing_parameter', 'model is required', { param: 'model' });
  const p = principalOf(call);
  const r = deps.catalogue.resolve(name);
  if (!r || !isVisible(p.models, r.entry, r.publicName, deps.channels, p, r.upstreamModel)) {
    // A model the token may use whose every channel the operator disabled: out of service for now, not unknown.
    if (r && isAllowed(p.models, r.entry, r.publicName) && deps.channels.unavailable(r.entry)) {
      throw new GatewayError(
        'no_channel',
        `The model '${r.publicName}' is temporarily unavailable: no upstream channel serving it is enabled`,
      );
    }
    throw notFound(name);
  }
  call.state.model = r.publicName;
  return r;
}

/**
 * A model named by a path (GET /v1/models/{id}): a blank name is an unknown model, not a missing parameter. Like the
 * list, it shows only models that can be called now: one whose channels are all disabled is 404 here (calls get 503).
 */
export function resolveNamedModel(deps: ModelAccessDeps, call: HasState, id: string): ResolvedModel {
  if (id.trim() === '') throw notFound(id);
  const p = principalOf(call);
  const r = deps.catalogue.resolve(id);
  if (!r || !isVisible(p.models, r.entry, r.publicName, deps.channels, p, r.upstreamModel)) throw notFound(id);
  call.state.model = r.publicName;
  return r;
}

/** The models the caller may use, in catalogue order. */
export function listVisibleModels(deps: ModelAccessDeps, call: HasState): ModelEntry[] {
  const p = principalOf(call);
  return visibleModels(p.models, deps.catalogue, deps.channels, p);
}
