import type { FastifyInstance } from 'fastify';
import type { ResolvedModel } from '../../../catalogue/types.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { isVisible, visibleModels } from '../../../routing/channel-registry.ts';
import type { AppDeps } from '../../deps.ts';
import { principalOf, type HasState } from '../../request-state.ts';

// A fixed "created" time per model: the catalogue is data, not a clock.
const CATALOGUE_EPOCH = 1_767_225_600; // 2026-01-01T00:00:00Z

export function registerModelRoutes(scope: FastifyInstance, deps: AppDeps): void {
  scope.get('/models', async (req) => {
    const p = principalOf(req);
    const data = visibleModels(p.models, deps.catalogue, deps.channels).map((e) => ({ id: e.id, object: 'model', created: CATALOGUE_EPOCH, owned_by: e.ownedBy }));
    return { object: 'list', data };
  });
  scope.get<{ Params: { id: string } }>('/models/:id', async (req) => {
    // A path always names a model, even a blank one: one that does not exist is 404, not "model is required".
    const id = req.params.id;
    if (id.trim() === '') throw new GatewayError('model_not_found', `The model '${id}' does not exist or you do not have access to it`, { param: 'model' });
    const r = resolveVisibleModel(deps, req, id);
    return { id: r.publicName, object: 'model', created: CATALOGUE_EPOCH, owned_by: r.entry.ownedBy };
  });
}

/** Resolve a public model name the caller may use, or throw model_not_found (unknown and invisible look alike). */
export function resolveVisibleModel(deps: Pick<AppDeps, 'catalogue' | 'channels'>, req: HasState, name: unknown): ResolvedModel {
  if (typeof name !== 'string' || name.trim() === '') throw new GatewayError('missing_parameter', 'model is required', { param: 'model' });
  const p = principalOf(req);
  const r = deps.catalogue.resolve(name);
  if (!r || !isVisible(p.models, r.entry, r.publicName, deps.channels)) {
    throw new GatewayError('model_not_found', `The model '${name}' does not exist or you do not have access to it`, { param: 'model' });
  }
  req.state.model = r.publicName;
  return r;
}
