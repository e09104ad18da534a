// GET /v1/models and /v1/models/{id}: the models this token may use (core/model-access.ts); GET /v1/videos/models:
// its video models with their durations, resolutions, fields and prices (core/video-discovery.ts).
import type { ModelEntry } from '../../../catalogue/types.ts';
import { listVisibleModels, resolveNamedModel } from '../../../core/model-access.ts';
import { videoViewOf, visibleVideoModels } from '../../../core/video-discovery.ts';
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

/** One model; a video model with its `video` block (where and how it is served, its prices for the caller). */
export const one = fastifyRoute<{ Params: { id: string } }>(({ deps }) => async (req) => {
  const r = resolveNamedModel(deps, req, req.params.id);
  const video = videoViewOf(deps, req, r.entry);
  return { ...modelObject(r.publicName, r.entry), ...(video ? { video } : {}) };
});

export const videos = fastifyRoute(({ deps }) => async (req) => ({
  object: 'list',
  data: visibleVideoModels(deps, req).map(({ entry, video }) => ({ ...modelObject(entry.id, entry), video })),
}));
