// DashScope video synthesis (Wan 2.7 and HappyHorse "media" protocol): the submit body, the async
// submit call, and the task query → a status the task engine understands. Translation only.
import type { VideoRules } from '../../catalogue/types.ts';
import { isObject } from '../../json/json.ts';
import type { VideoSpec } from '../../contracts/videos.ts';
import { isContentFilterCode, mentionsContentFilter } from '../../errors/content-filter.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { UpstreamClient } from '../http-client.ts';
import { readJson } from '../read-json.ts';
import { retryAfterMs } from '../retry-after.ts';
import { dashscopeError } from './errors.ts';
import type { ReportedUsage } from '../../tasks/types.ts';
import { parseVideoUsage } from './video-usage.ts';
import type { CallLimit } from '../../tasks/types.ts';

export const VIDEO_SYNTHESIS_PATH = '/api/v1/services/aigc/video-generation/video-synthesis';
export const TASK_PATH = (id: string) => `/api/v1/tasks/${encodeURIComponent(id)}`;

export interface DashscopeTarget {
  baseUrl: string;
  apiKey: string;
}

/** Upstream body for one checked request. Parameters follow each model's own rules (catalogue `video` rules). */
export function buildVideoSynthesisBody(
  spec: VideoSpec,
  rules: VideoRules,
  upstreamModel: string,
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  if (spec.prompt !== undefined) input.prompt = spec.prompt;
  if (spec.media.length > 0) input.media = spec.media.map((m) => ({ type: m.type, url: m.url }));
  const parameters: Record<string, unknown> = { resolution: spec.resolution === '1080p' ? '1080P' : '720P' };
  if (rules.duration) parameters.duration = spec.seconds ?? rules.upstreamDefaultDuration ?? rules.defaultSeconds;
  if (rules.ratio && spec.ratio) parameters.ratio = spec.ratio;
  if (spec.seed !== null) parameters.seed = spec.seed;
  return { model: upstreamModel, input, parameters };
}

export interface VideoSubmitResult {
  upstreamTaskId: string;
  upstreamStatus: string;
  upstreamRequestId: string | null;
}

export async function submitVideoSynthesis(
  client: UpstreamClient,
  t: DashscopeTarget,
  body: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<VideoSubmitResult> {
  const res = await client.request({
    method: 'POST',
    baseUrl: t.baseUrl,
    path: VIDEO_SYNTHESIS_PATH,
    headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json', 'x-dashscope-async': 'enable' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
    timeouts: { headersMs: 30_000 },
  });
  const json = await readJson(res);
  if (res.statusCode !== 200) throw dashscopeError(res.statusCode, json, retryAfterMs(res.headers['retry-after']));
  // A top-level `code` in a 200 answer is an error too.
  if (isObject(json) && typeof json.code === 'string' && json.code !== '') throw dashscopeError(400, json);
  const out = isObject(json) && isObject(json.output) ? json.output : null;
  const id = out && typeof out.task_id === 'string' ? out.task_id : null;
  if (!id) throw new GatewayError('upstream_error', 'The upstream accepted the task but returned no task id');
  return {
    upstreamTaskId: id,
    upstreamStatus: out && typeof out.task_status === 'string' ? out.task_status : 'PENDING',
    upstreamRequestId: isObject(json) && typeof json.request_id === 'string' ? json.request_id : null,
  };
}

export type VideoTaskStatus =
  | { state: 'queued' | 'in_progress'; upstreamStatus: string; upstreamRequestId: string | null }
  | {
      state: 'succeeded';
      upstreamStatus: string;
      upstreamRequestId: string | null;
      videoUrl: string;
      expiresAt: number | null;
      usage: ReportedUsage;
    }
  | {
      state: 'failed' | 'cancelled' | 'unknown';
      upstreamStatus: string;
      upstreamRequestId: string | null;
      code: string;
      message: string;
      upstreamMessage?: string;
    };

/** OSS signed URLs carry `Expires=<unix seconds>`. */
export function expiresOf(url: string): number | null {
  try {
    const e = new URL(url).searchParams.get('Expires');
    return e && /^\d+$/.test(e) ? Number(e) * 1000 : null;
  } catch {
    return null;
  }
}

/** One task query (single or list) as JSON; a non-200 answer is thrown as its error. */
export async function getTaskJson(
  client: UpstreamClient,
  t: DashscopeTarget,
  path: string,
  limit: CallLimit,
): Promise<unknown> {
  // Read whole as text (no body stream per query): the poller makes many of these.
  const res = await client.requestText({
    method: 'GET',
    baseUrl: t.baseUrl,
    path,
    headers: { authorization: `Bearer ${t.apiKey}` },
    timeouts: { headersMs: limit.timeoutMs, bodyIdleMs: limit.timeoutMs },
  });
  let json: unknown;
  try {
    json = JSON.parse(res.text);
  } catch {
    throw new GatewayError('upstream_error', 'The upstream returned a malformed response');
  }
  if (res.statusCode !== 200) throw dashscopeError(res.statusCode, json);
  return json;
}

export async function queryVideoTask(
  client: UpstreamClient,
  t: DashscopeTarget,
  upstreamTaskId: string,
  limit: CallLimit,
): Promise<VideoTaskStatus> {
  return parseVideoTask(await getTaskJson(client, t, TASK_PATH(upstreamTaskId), limit));
}

/** Ask DashScope to cancel a task (it accepts only tasks still PENDING; a refusal is thrown as its error). */
export async function cancelVideoTask(
  client: UpstreamClient,
  t: DashscopeTarget,
  upstreamTaskId: string,
  limit: CallLimit,
): Promise<void> {
  const res = await client.request({
    method: 'POST',
    baseUrl: t.baseUrl,
    path: `${TASK_PATH(upstreamTaskId)}/cancel`,
    headers: { authorization: `Bearer ${t.apiKey}` },
    timeouts: { headersMs: limit.timeoutMs, bodyIdleMs: limit.timeoutMs },
  });
  const json = await readJson(res);
  if (res.statusCode !== 200) throw dashscopeError(res.statusCode, json);
}

export function parseVideoTask(json: unknown): VideoTaskStatus {
  if (!isObject(json) || !isObject(json.output))
    throw new GatewayError('upstream_error', 'The upstream task answer has no output');
  const out = json.output;
  const rid = typeof json.request_id === 'string' ? json.request_id : null;
  const status = typeof out.task_status === 'string' ? out.task_status : '';
  const code = typeof out.code === 'string' ? out.code : '';
  const message = typeof out.message === 'string' ? out.message : '';
  switch (status) {
    case 'PENDING':
      return { state: 'queued', upstreamStatus: status, upstreamRequestId: rid };
    case 'RUNNING':
    case 'SUSPENDED':
      return { state: 'in_progress', upstreamStatus: status, upstreamRequestId: rid };
    case 'SUCCEEDED': {
      const url = typeof out.video_url === 'string' ? out.video_url : null;
      if (!url)
        return {
          state: 'failed',
          upstreamStatus: status,
          upstreamRequestId: rid,
          code: 'upstream_no_output',
          message: 'The upstream task succeeded without a video URL',
        };
      return {
        state: 'succeeded',
        upstreamStatus: status,
        upstreamRequestId: rid,
        videoUrl: url,
        expiresAt: expiresOf(url),
        usage: parseVideoUsage(json.usage),
      };
    }
    case 'FAILED': {
      // A task the content inspection stopped fails with the catalogue's code, whatever the upstream spelled. The
      // upstream's code and message (they may name its models or hosts) are the operators'; the client gets our words.
      const filtered = isContentFilterCode(code) || mentionsContentFilter(message);
      const words = code || message ? { upstreamMessage: [code, message].filter((x) => x !== '').join(': ') } : {};
      if (filtered)
        return {
          state: 'failed',
          upstreamStatus: status,
          upstreamRequestId: rid,
          code: 'upstream_content_filtered',
          message: 'Upstream content policy rejected the request',
          ...words,
        };
      return {
        state: 'failed',
        upstreamStatus: status,
        upstreamRequestId: rid,
        code: 'upstream_task_failed',
        message: 'The upstream task failed',
        ...words,
      };
    }
    case 'CANCELED':
      return {
        state: 'cancelled',
        upstreamStatus: status,
        upstreamRequestId: rid,
        code: 'cancelled',
        message: 'The upstream task was cancelled',
      };
    case 'UNKNOWN':
      return {
        state: 'unknown',
        upstreamStatus: status,
        upstreamRequestId: rid,
        code: 'task_unknown',
        message: 'The upstream no longer knows this task (expired or not found)',
      };
    default:
      throw new GatewayError('upstream_error', `The upstream reported an unexpected task status`);
  }
}
