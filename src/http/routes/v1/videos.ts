// /v1/videos over HTTP: the body (JSON or the SDK's multipart) and the content download; the rest is core/videos.ts.
import type { FastifyRequest } from 'fastify';
import { requireBody } from '../../../contracts/fields.ts';
import type { JsonObject } from '../../../json/json.ts';
import { qInt, qString, type Query } from '../../../contracts/query.ts';
import { unflattenFields } from '../../../contracts/form-fields.ts';
import { createVideo, downloadableResult, listVideos, ownedVideo, videoObject } from '../../../core/videos.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { fastifyRoute } from '../../front/route-row.ts';
import { isMultipart, readMultipart } from '../../multipart.ts';
import { sendVideoContent } from '../../video-content.ts';

async function readBody(req: FastifyRequest): Promise<{ body: JsonObject; multipart: boolean }> {
  if (!isMultipart(req)) return { body: requireBody(req.body), multipart: false };
  const mp = await readMultipart(req);
  const file = mp.files[0];
  if (file) {
    throw new GatewayError(
      'invalid_reference',
      `${file.field}: file uploads are not supported; pass a public http(s) URL`,
      { param: file.field },
    );
  }
  return { body: unflattenFields(mp.fields), multipart: true };
}

type ById = { Params: { id: string } };

export const create = fastifyRoute(({ deps }) => async (req) => {
  const { body, multipart } = await readBody(req);
  return createVideo(deps, req, body, multipart);
});

export const list = fastifyRoute<{ Querystring: Query }>(({ deps }) => async (req) => {
  const limit = qInt(req.query, 'limit', 1, 100, 20)!;
  return listVideos(deps, req, { limit, after: qString(req.query, 'after', 64) });
});

export const one = fastifyRoute<ById>(({ deps }) => async (req) => {
  return videoObject(await ownedVideo(deps, req, req.params.id, true));
});

export const content = fastifyRoute<ById>(({ deps }) => async (req, reply) => {
  const t = await ownedVideo(deps, req, req.params.id, true);
  return sendVideoContent(deps, req, reply, downloadableResult(t), t.id);
});
