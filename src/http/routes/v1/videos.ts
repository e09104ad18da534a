// /v1/videos: create (JSON or the SDK's multipart), query, list and download (content proxy).
// Creation places a metering hold through the task engine; the charge happens at terminal success.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DashscopeVideoDriver, DASHSCOPE_VIDEO_TASK_KIND, type VideoTaskResult } from '../../../adapters/dashscope/video-driver.ts';
import { buildVideoSynthesisBody, submitVideoSynthesis } from '../../../adapters/dashscope/video.ts';
import { isObject, requireBody, type JsonObject } from '../../../contracts/fields.ts';
import { unflattenFields, validateVideoRequest, type VideoSpec } from '../../../contracts/videos.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { redact } from '../../../errors/redact.ts';
import type { Usage } from '../../../metering/types.ts';
import { resultDownloadPolicy, safeStream } from '../../../net/index.ts';
import { withFailover } from '../../../routing/failover.ts';
import type { TaskRecord } from '../../../tasks/types.ts';
import type { AppDeps } from '../../deps.ts';
import { isMultipart, readMultipart } from '../../multipart.ts';
import { principalOf } from '../../request-state.ts';
import { resolveVisibleModel } from './models.ts';
import { qInt, qString, type Query } from '../../../contracts/query.ts';

/** Videos can be large; the proxy streams them, so this cap only guards against a runaway upstream. */
const MAX_VIDEO_BYTES = 4 * 1024 * 1024 * 1024;

const STATUS: Record<TaskRecord['state'], string> = {
  submitting: 'queued',
  queued: 'queued',
  in_progress: 'in_progress',
  succeeded: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

interface StoredVideoRequest {
  prompt: string | null;
  seconds: number;
  resolution: string;
  size: string | null;
}

function snapshot(spec: VideoSpec, seconds: number): StoredVideoRequest {
  return { prompt: spec.prompt ?? null, seconds, resolution: spec.resolution, size: spec.size };
}

const unix = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : Math.floor(ms / 1000));

/** The video object: our own id (as `id` and `video_id`), never the upstream's. */
export function videoObject(t: TaskRecord): Record<string, unknown> {
  const req = (isObject(t.request) ? t.request : {}) as Partial<StoredVideoRequest>;
  const result = (isObject(t.result) ? t.result : null) as VideoTaskResult | null;
  const completed = t.state === 'succeeded';
  const o: Record<string, unknown> = {
    id: t.id,
    video_id: t.id,
    object: 'video',
    model: t.model,
    status: STATUS[t.state],
    progress: completed ? 100 : (t.progress ?? 0),
    created_at: unix(t.createdAt),
    completed_at: completed ? unix(t.finishedAt) : null,
    expires_at: completed ? unix(result?.expiresAt) : null,
    prompt: req.prompt ?? null,
    seconds: req.seconds !== undefined ? String(req.seconds) : null,
    size: req.size ?? null,
    resolution: req.resolution ?? null,
    error: null,
  };
  if (completed && result) o.url = result.url;
  if ((t.state === 'failed' || t.state === 'cancelled') && t.error) {
    o.error = { code: t.error.code, message: redact(t.error.message) };
  }
  if (t.upstreamRequestId) o.upstream_request_id = t.upstreamRequestId;
  return o;
}

async function readBody(req: FastifyRequest): Promise<{ body: JsonObject; multipart: boolean }> {
  if (!isMultipart(req)) return { body: requireBody(req.body), multipart: false };
  const mp = await readMultipart(req);
  const file = mp.files[0];
  if (file) {
    throw new GatewayError('invalid_reference', `${file.field}: file uploads are not supported; pass a public http(s) URL`, { param: file.field });
  }
  return { body: unflattenFields(mp.fields), multipart: true };
}

async function createVideo(deps: AppDeps, req: FastifyRequest): Promise<Record<string, unknown>> {
  const { body, multipart } = await readBody(req);
  const r = resolveVisibleModel(deps, req, body.model);
  const rules = r.entry.video;
  if (r.entry.kind !== 'video' || !rules) throw new GatewayError('model_not_supported', `The model '${r.publicName}' is not a video model`, { param: 'model' });
  const spec = validateVideoRequest(body, rules, r.entry.id, { multipart });
  const p = principalOf(req);
  if (p.quota !== null) await deps.meter.assertQuota(p.tokenId);
  const channels = deps.channels.forModel(r.entry);
  if (channels.length === 0) throw new GatewayError('no_channel', 'No upstream channel is available for this model');
  const seconds = spec.seconds ?? rules.defaultSeconds;
  const basis = r.entry.price.unit === 'video-second' ? r.entry.price.basis : 'output';
  // Hold: requested seconds × tier (edit models: the output estimate counted for input as well).
  const estimate: Usage = { kind: 'video', outputSeconds: seconds, inputSeconds: basis === 'input+output' ? seconds : 0, tier: spec.resolution };
  const upstreamBody = buildVideoSynthesisBody(spec, rules, r.upstreamModel);
  const task = await deps.tasks.create({
    id: `video_${randomUUID().replace(/-/g, '')}`,
    family: 'v1',
    kind: DASHSCOPE_VIDEO_TASK_KIND,
    tokenId: p.tokenId,
    model: r.publicName,
    billingModel: r.billingModel,
    upstreamModel: r.upstreamModel,
    channel: channels[0]!,
    request: snapshot(spec, seconds),
    requestId: req.id,
    tier: spec.resolution,
    estimate,
    // connect-only: a creation the upstream may have accepted is never sent twice.
    submit: () =>
      withFailover(
        channels,
        deps.breakers,
        async (ch) => {
          if (!ch.keys.apiKey) throw new GatewayError('no_channel', 'The upstream channel has no API key configured');
          const out = await submitVideoSynthesis(deps.upstream, { baseUrl: ch.baseUrl, apiKey: ch.keys.apiKey }, upstreamBody);
          return { upstreamTaskId: out.upstreamTaskId, upstreamStatus: out.upstreamStatus, upstreamRequestId: out.upstreamRequestId, channelId: ch.id };
        },
        { policy: 'connect-only', onNotEntitled: (ch) => deps.channels.markNotEntitled(ch.id, r.entry.id) },
      ),
  });
  req.state.upstreamRequestId = task.upstreamRequestId;
  req.state.usage = { hold: task.holdAmount, estimate };
  return videoObject(task);
}

function notFound(id: string): GatewayError {
  return new GatewayError('not_found', `No video found with id '${id}'`, { param: 'video_id' });
}

async function ownedVideo(deps: AppDeps, req: FastifyRequest, id: string, fresh: boolean): Promise<TaskRecord> {
  const p = principalOf(req);
  // Another token's task and an unknown id look exactly alike.
  const t = fresh ? await deps.tasks.getFresh(id, p.tokenId) : await deps.tasks.getFor(id, p.tokenId);
  if (!t || t.family !== 'v1' || t.kind !== DASHSCOPE_VIDEO_TASK_KIND || t.state === 'submitting') throw notFound(id);
  req.state.model = t.model;
  if (t.upstreamRequestId) req.state.upstreamRequestId = t.upstreamRequestId;
  return t;
}

const BYTE_RANGES = /^bytes=(?:\d+-\d*|-\d+)(?:\s*,\s*(?:\d+-\d*|-\d+))*$/;

async function sendContent(deps: AppDeps, req: FastifyRequest, reply: FastifyReply, t: TaskRecord): Promise<FastifyReply> {
  if (t.state !== 'succeeded') {
    throw new GatewayError('video_not_ready', `The video is not ready (status: ${STATUS[t.state]}); poll GET /v1/videos/${t.id} until it is completed`);
  }
  const result = (isObject(t.result) ? t.result : null) as VideoTaskResult | null;
  if (!result?.url) throw new GatewayError('download_failed', 'The finished task has no result file');
  const expired = () => new GatewayError('result_expired', 'The video result URL has expired; renewal is not supported — create the video again');
  if (result.expiresAt !== null && result.expiresAt <= Date.now()) throw expired();
  const headers: Record<string, string> = {};
  // Only a well-formed byte range goes on; RFC 9110 has a server ignore any other Range (a whole 200 answer)
  // rather than answer 416 as some result hosts do.
  const range = req.headers.range;
  if (typeof range === 'string' && BYTE_RANGES.test(range)) headers.range = range;
  const up = await safeStream(result.url, { ...resultDownloadPolicy(deps.config), headers, maxBytes: MAX_VIDEO_BYTES, timeoutMs: 60_000 });
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

export function registerVideoRoutes(scope: FastifyInstance, deps: AppDeps): void {
  deps.tasks.registerDriver(
    DASHSCOPE_VIDEO_TASK_KIND,
    new DashscopeVideoDriver(deps.upstream, (billingModel) => {
      const e = deps.catalogue.get(billingModel);
      return e && e.price.unit === 'video-second' ? e.price.basis : 'output';
    }),
  );

  scope.post('/videos', async (req) => createVideo(deps, req));

  scope.get<{ Querystring: Query }>('/videos', async (req) => {
    const p = principalOf(req);
    const limit = qInt(req.query, 'limit', 1, 100, 20)!;
    const after = qString(req.query, 'after', 64);
    let before: number | undefined;
    if (after) {
      // An unknown cursor and another token's id look alike: both are a bad parameter.
      const a = await deps.tasks.getFor(after, p.tokenId);
      if (!a) throw new GatewayError('invalid_parameter', 'after must be the id of one of your videos', { param: 'after' });
      before = a.createdAt;
    }
    const rows = await deps.tasks.repo.listFor(p.tokenId, { family: 'v1', kind: DASHSCOPE_VIDEO_TASK_KIND, limit: limit + 1, ...(before !== undefined ? { before } : {}) });
    const data = rows.slice(0, limit).map(videoObject);
    return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null, has_more: rows.length > limit };
  });

  scope.get<{ Params: { id: string } }>('/videos/:id', async (req) => videoObject(await ownedVideo(deps, req, req.params.id, true)));

  scope.get<{ Params: { id: string } }>('/videos/:id/content', async (req, reply) => {
    const t = await ownedVideo(deps, req, req.params.id, true);
    return sendContent(deps, req, reply, t);
  });
}
