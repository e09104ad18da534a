// GET /v1/models and /v1/models/{id}: the models this token may use (core/model-access.ts).
import type { ModelEntry } from '../../../catalogue/types.ts';
import { listVisibleModels, resolveNamedModel } from '../../../core/model-access.ts';
import { fastifyRoute } from '../../front/route-row.ts';

// A fixed "created" time per model: the catalogue is data, not a clock.
const CATALOGUE_EPOCH = 1_767_225_600; // 2026-01-01T00:00:00Z

const modelObject = (id: string, e: ModelEntry) => ({
  id,
  object: 'model',
  created: CATALOGUE_EPOCH,
  owned_by: e.ownedBy,
});

export const list = fastifyRoute(({ deps }) => async (req) => ({
  object: 'list',
  data: listVisibleModels(deps, req).map((e) => modelObject(e.id, e)),
}));

export const one = fastifyRoute<{ Params: { id: string } }>(({ deps }) => async (req) => {
  const r = resolveNamedModel(deps, req, req.params.id);
  return modelObject(r.publicName, r.entry);
});
