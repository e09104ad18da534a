// /v1/videos: create (a metering hold through the task engine; the charge happens at terminal success), query,
// list, and what a download needs. Video ids are ours, bound to the owning token, never the upstream's.
import type { UpstreamClient } from '../adapters/http-client.ts';
import { DASHSCOPE_VIDEO_TASK_KIND, type VideoTaskResult } from '../adapters/dashscope/video-driver.ts';
import { buildVideoSynthesisBody, submitVideoSynthesis } from '../adapters/dashscope/video.ts';
import { isObject, type JsonObject } from '../json/json.ts';
import { validateVideoRequest, type VideoSpec } from '../contracts/videos.ts';
import { inlineMedia, type FilePart } from '../contracts/video-uploads.ts';
import { readCallbackUrl } from '../contracts/vidx.ts';
import type { Config } from '../config/config.ts';
import { forbiddenAddressReason } from '../net/address-policy.ts';
import { listVisibleVideos } from '../store/repos/video-tasks.ts';
import { storeInlineMedia, type VideoInputDeps } from './video-inputs.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { redact } from '../errors/redact.ts';
import { apiKeyTarget } from '../routing/channel-target.ts';
import type { Keyset } from '../store/keyset.ts';
import type { TaskRecord } from '../tasks/types.ts';
import { principalOf, type CallContext, type HasState } from './call.ts';
import { resolveVisibleModel, type ModelAccessDeps } from './model-access.ts';
import { newTaskId, submitTask, type TaskSubmitDeps } from './task-submit.ts';

export interface VideoDeps extends ModelAccessDeps, TaskSubmitDeps, VideoInputDeps {
  readonly upstream: UpstreamClient;
  readonly config: Pick<Config, 'publicUrl' | 'allowPrivateNetwork'>;
}

const STATUS: Record<TaskRecord['state'], string> = {
  waiting: 'queued',
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

/**
 * POST /v1/videos: validate (inline media and the callback address included), store inline media, hold the estimate,
 * submit (through the task engine); the charge comes at success. Every refusal comes before the hold.
 */
export async function createVideo(
  deps: VideoDeps,
  req: CallContext,
  raw: JsonObject,
  input: { multipart: boolean; files: readonly FilePart[] },
): Promise<Record<string, unknown>> {
  const r = resolveVisibleModel(deps, req, raw.model);
  const rules = r.entry.video;
  if (r.entry.kind !== 'video' || !rules)
    throw new GatewayError('model_not_supported', `The model '${r.publicName}' is not a video model`, {
      param: 'model',
    });
  const { body, media } = inlineMedia(raw, input.files);
  const spec = validateVideoRequest(body, rules, r.entry.id, { multipart: input.multipart });
  const callbackUrl = readCallbackUrl(body, deps.config.allowPrivateNetwork, forbiddenAddressReason) ?? null;
  const stored = await storeInlineMedia(deps, principalOf(req).tokenId, media);
  spec.media = spec.media.map((m) => ({ ...m, url: stored.get(m.url) ?? m.url }));
  const seconds = spec.seconds ?? rules.defaultSeconds;
  const upstreamBody = buildVideoSynthesisBody(spec, rules, r.upstreamModel);
  const task = await submitTask(deps, req, {
    id: newTaskId('video'),
    family: 'v1',
    kind: DASHSCOPE_VIDEO_TASK_KIND,
    model: r,
    channels: deps.channels.forModel(r.entry, r.upstreamModel, principalOf(req)),
    request: snapshot(spec, seconds),
    size: { seconds, resolution: spec.resolution },
    callbackUrl,
    send: async (ch) => {
      const out = await submitVideoSynthesis(deps.upstream, apiKeyTarget(ch), upstreamBody);
      return {
        upstreamTaskId: out.upstreamTaskId,
        upstreamStatus: out.upstreamStatus,
        upstreamRequestId: out.upstreamRequestId,
        channelId: ch.id,
      };
    },
  });
  req.state.upstreamRequestId = task.upstreamRequestId;
  req.state.usage = { hold: task.holdAmount, estimate: task.usage };
  return videoObject(task);
}

function notFound(id: string): GatewayError {
  return new GatewayError('not_found', `No video found with id '${id}'`, { param: 'video_id' });
}

/** One of the caller's videos, refreshed from the upstream when stale (`fresh`); another token's is not found. */
export async function ownedVideo(deps: VideoDeps, req: HasState, id: string, fresh: boolean): Promise<TaskRecord> {
  const p = principalOf(req);
  // Another token's task and an unknown id look exactly alike.
  const t = fresh ? await deps.tasks.getFresh(id, p.tokenId) : await deps.tasks.getFor(id, p.tokenId);
  // A video its owner deleted is gone for them (the operator keeps the task and its charge).
  if (t?.family !== 'v1' || t.kind !== DASHSCOPE_VIDEO_TASK_KIND || t.state === 'submitting' || t.deletedAt)
    throw notFound(id);
  req.state.model = t.model;
  if (t.upstreamRequestId) req.state.upstreamRequestId = t.upstreamRequestId;
  return t;
}

/**
 * GET /v1/videos, as OpenAI's list: the caller's videos (not deleted), newest first unless `order` is `asc`, paged by
 * `after` (one of the caller's video ids: the page holds those after it in that order).
 */
export async function listVideos(
  deps: VideoDeps,
  req: HasState,
  q: { limit: number; order: 'asc' | 'desc'; after?: string | undefined },
): Promise<Record<string, unknown>> {
  const p = principalOf(req);
  let after: Keyset | undefined;
  if (q.after) {
    // An unknown cursor and another token's id look alike: both are a bad parameter.
    const a = await deps.tasks.getFor(q.after, p.tokenId);
    if (!a)
      throw new GatewayError('invalid_parameter', 'after must be the id of one of your videos', { param: 'after' });
    after = { createdAt: a.createdAt, id: a.id };
  }
  const rows = await listVisibleVideos(deps.tasks.repo.db, {
    tokenId: p.tokenId,
    kind: DASHSCOPE_VIDEO_TASK_KIND,
    limit: q.limit + 1,
    order: q.order,
    after,
  });
  const data = rows.slice(0, q.limit).map(videoObject);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: rows.length > q.limit,
  };
}

/**
 * The finished video's result (URL, expiry) for download — of a /v1 video or a family A task — or why it cannot be.
 * `statusPath`: where the caller reads the task's status (named in the not-ready answer).
 */
export function downloadableResult(
  t: TaskRecord,
  statusPath = `/v1/videos/${t.id}`,
): { url: string; expired: () => GatewayError } {
  if (t.state !== 'succeeded') {
    throw new GatewayError(
      'video_not_ready',
      `The video is not ready (status: ${STATUS[t.state]}); poll GET ${statusPath} until it is completed`,
    );
  }
  const result = (isObject(t.result) ? t.result : null) as (Partial<VideoTaskResult> & { videos?: unknown }) | null;
  // A /v1 video keeps its URL and expiry; a family A task its `videos` list (the first is the video).
  const first: unknown = Array.isArray(result?.videos) ? result.videos[0] : undefined;
  const url =
    typeof result?.url === 'string' ? result.url : isObject(first) && typeof first.url === 'string' ? first.url : null;
  if (!url) throw new GatewayError('download_failed', 'The finished task has no result file');
  const expired = () =>
    new GatewayError(
      'result_expired',
      'The video result URL has expired; renewal is not supported — create the video again',
    );
  if (typeof result?.expiresAt === 'number' && result.expiresAt <= Date.now()) throw expired();
  return { url, expired };
}
