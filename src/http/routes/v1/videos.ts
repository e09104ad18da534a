// /v1/videos over HTTP: the body (JSON or the SDK's multipart, file parts included), the content download, the
// delete, and the stored reference media the upstream fetches; the rest is core/videos.ts and core/video-delete.ts.
import type { FastifyRequest } from 'fastify';
import { requireBody } from '../../../contracts/fields.ts';
import type { JsonObject } from '../../../json/json.ts';
import { qEnum, qInt, qOnly, qString, type Query } from '../../../contracts/query.ts';
import { unflattenFields } from '../../../contracts/form-fields.ts';
import type { FilePart } from '../../../contracts/video-uploads.ts';
import { createVideo, downloadableResult, listVideos, ownedVideo, videoObject } from '../../../core/videos.ts';
import { deleteVideo, servedVariant } from '../../../core/video-delete.ts';
import { readInlineMedium } from '../../../core/video-inputs.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { isMultipart, readMultipart } from '../../multipart.ts';
import { sendVideoContent } from '../../video-content.ts';

async function readBody(req: FastifyRequest): Promise<{ body: JsonObject; multipart: boolean; files: FilePart[] }> {
  if (!isMultipart(req)) return { body: requireBody(req.body), multipart: false, files: [] };
  const mp = await readMultipart(req);
  const files = mp.files.map((f) => ({ field: f.field, contentType: f.mimetype, data: f.data }));
  return { body: unflattenFields(mp.fields), multipart: true, files };
}

type ById = { Params: { id: string } };

export const create = fastifyRoute(({ deps }) => async (req) => {
  const { body, multipart, files } = await readBody(req);
  return createVideo(deps, req, body, { multipart, files });
});

export const list = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  qOnly(req.query, ['limit', 'after', 'order']);
  const limit = qInt(req.query, 'limit', 1, 100, 20)!;
  const order = qEnum(req.query, 'order', ['asc', 'desc'] as const, 'desc');
  return listVideos(deps, req, { limit, order, after: qString(req.query, 'after', 64) });
});

export const one = fastifyRoute<ById>(({ deps }) => async (req) => {
  return videoObject(await ownedVideo(deps, req, req.params.id, true));
});

export const remove = fastifyRoute<ById>(
  ({ deps }) =>
    async (req) =>
      deleteVideo(deps, req, req.params.id),
);

export const content = fastifyRoute<ById & { Querystring: Query }>(({ deps }) => async (req, reply) => {
  const t = await ownedVideo(deps, req, req.params.id, true);
  qOnly(req.query, ['variant']);
  servedVariant(qString(req.query, 'variant', 20));
  return sendVideoContent(deps, req, reply, downloadableResult(t), t.id);
});

/** GET /v1/videos/inputs/{name}?sig=: a stored reference medium, for the upstream (no token: the address is signed). */
export const input = fastifyRoute<{ Params: { name: string }; Querystring: Query }>(
  ({ deps }) =>
    async (req, reply) => {
      const m = await readInlineMedium(deps, req.params.name, qString(req.query, 'sig', 128));
      reply.header('content-type', m.contentType);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('content-security-policy', "default-src 'none'; sandbox");
      reply.header('cache-control', 'private, max-age=3600');
      return reply.send(m.data);
    },
);
