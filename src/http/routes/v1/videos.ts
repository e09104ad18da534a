// /v1/videos over HTTP: the body (JSON or the SDK's multipart) and the content proxy; the rest is core/videos.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireBody, type JsonObject } from '../../../contracts/fields.ts';
import { qInt, qString, type Query } from '../../../contracts/query.ts';
import { unflattenFields } from '../../../contracts/form-fields.ts';
import { createVideo, downloadableResult, listVideos, ownedVideo, videoObject } from '../../../core/videos.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { resultDownloadPolicy, safeStream } from '../../../net/index.ts';
import type { TaskRecord } from '../../../tasks/types.ts';
import type { GatewayDeps } from '../../../core/deps.ts';
import { isMultipart, readMultipart } from '../../multipart.ts';

/** Videos can be large; the proxy streams them, so this cap only guards against a runaway upstream. */
const MAX_VIDEO_BYTES = 4 * 1024 * 1024 * 1024;

async function readBody(req: FastifyRequest): Promise<{ body: JsonObject; multipart: boolean }> {
  if (!isMultipart(req)) return { body: requireBody(req.body), multipart: false };
  const mp = await readMultipart(req);
  const file = mp.files[0];
  if (file) {
    throw new GatewayError('invalid_reference', `${file.field}: file uploads are not supported; pass a public http(s) URL`, { param: file.field });
  }
  return { body: unflattenFields(mp.fields), multipart: true };
}

const BYTE_RANGES = /^bytes=(?:\d+-\d*|-\d+)(?:\s*,\s*(?:\d+-\d*|-\d+))*$/;

async function sendContent(deps: GatewayDeps, req: FastifyRequest, reply: FastifyReply, t: TaskRecord): Promise<FastifyReply> {
  const { url, expired } = downloadableResult(t);
  const headers: Record<string, string> = {};
  // Only a well-formed byte range goes on; RFC 9110 has a server ignore any other Range (a whole 200 answer)
  // rather than answer 416 as some result hosts do.
  const range = req.headers.range;
  if (typeof range === 'string' && BYTE_RANGES.test(range)) headers.range = range;
  const up = await safeStream(url, { ...resultDownloadPolicy(deps.config), headers, maxBytes: MAX_VIDEO_BYTES, timeoutMs: 60_000 });
  if (up.statusCode === 403 || up.statusCode === 404 || up.statusCode === 410) {
    up.body.destroy();
    throw expired();
  }
  if (up.statusCode !== 200 && up.statusCode !== 206 && up.statusCode !== 416) {
    up.body.destroy();
    throw new GatewayError('download_failed', `The result host answered HTTP ${up.statusCode}`);
  }
  reply.code(up.statusCode);
  for (const h of ['content-type', 'content-length', 'content-range', 'accept-ranges', 'etag', 'last-modified']) {
    const v = up.headers[h];
    if (typeof v === 'string') reply.header(h, v);
  }
  if (!up.headers['content-type']) reply.header('content-type', 'video/mp4');
  reply.header('content-disposition', `inline; filename="${t.id}.mp4"`);
  // Streamed through, never buffered: Fastify pipes the Readable and destroys it if the client goes away.
  return reply.send(up.body);
}

export function registerVideoRoutes(scope: FastifyInstance, deps: GatewayDeps): void {
  scope.post('/videos', async (req) => {
    const { body, multipart } = await readBody(req);
    return createVideo(deps, req, body, multipart);
  });

  scope.get<{ Querystring: Query }>('/videos', async (req) => listVideos(deps, req, { limit: qInt(req.query, 'limit', 1, 100, 20)!, after: qString(req.query, 'after', 64) }));

  scope.get<{ Params: { id: string } }>('/videos/:id', async (req) => videoObject(await ownedVideo(deps, req, req.params.id, true)));

  scope.get<{ Params: { id: string } }>('/videos/:id/content', async (req, reply) => {
    const t = await ownedVideo(deps, req, req.params.id, true);
    return sendContent(deps, req, reply, t);
  });
}
