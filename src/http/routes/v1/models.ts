// GET /v1/models and /v1/models/{id}: the models this token may use (core/model-access.ts), in OpenAI's shape, or in
// Anthropic's for a caller that sends anthropic-version (the @anthropic-ai/sdk always does); GET /v1/videos/models:
// its video models with their durations, resolutions, fields and prices (core/video-discovery.ts).
import type { ModelEntry } from '../../../catalogue/types.ts';
import { qInt, qOnly, qString, type Query } from '../../../contracts/query.ts';
import { anthropicModel, anthropicModelPage } from '../../../core/anthropic-models.ts';
import { listVisibleModels, resolveNamedModel } from '../../../core/model-access.ts';
import { videoViewOf, visibleVideoModels } from '../../../core/video-discovery.ts';
import { fastifyRoute } from '../../front/route-row.ts';

// A fixed "created" time per model: the catalogue is data, not a clock.
const CATALOGUE_EPOCH = 1_767_225_600; // 2026-01-01T00:00:00Z
const CATALOGUE_EPOCH_ISO = new Date(CATALOGUE_EPOCH * 1000).toISOString();

const modelObject = (id: string, e: ModelEntry) => ({
  id,
  object: 'model',
  created: CATALOGUE_EPOCH,
  owned_by: e.ownedBy,
});

const anthropic = (headers: Record<string, string | string[] | undefined>) =>
  headers['anthropic-version'] !== undefined;

export const list = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  const visible = listVisibleModels(deps, req);
  if (!anthropic(req.headers)) return { object: 'list', data: visible.map((e) => modelObject(e.id, e)) };
  qOnly(req.query, ['limit', 'after_id', 'before_id']);
  return anthropicModelPage(
    visible.map((e) => anthropicModel(e.id, CATALOGUE_EPOCH_ISO)),
    {
      limit: qInt(req.query, 'limit', 1, 1000, 20) ?? 20,
      afterId: qString(req.query, 'after_id'),
      beforeId: qString(req.query, 'before_id'),
    },
  );
});

/** One model; a video model with its `video` block (where and how it is served, its prices for the caller). */
export const one = fastifyRoute<{ Params: { id: string } }>(({ deps }) => async (req) => {
  const r = resolveNamedModel(deps, req, req.params.id);
  if (anthropic(req.headers)) return anthropicModel(r.publicName, CATALOGUE_EPOCH_ISO);
  const video = videoViewOf(deps, req, r.entry);
  return { ...modelObject(r.publicName, r.entry), ...(video ? { video } : {}) };
});

export const videos = fastifyRoute(({ deps }) => async (req) => ({
  object: 'list',
  data: visibleVideoModels(deps, req).map(({ entry, video }) => ({ ...modelObject(entry.id, entry), video })),
}));
