// The simulated DashScope account's async task store, shared by every async area (video synthesis,
// async image generation …), and the task query `GET /api/v1/tasks/{id}` (+ cancel).
// PENDING → RUNNING → SUCCEEDED | FAILED; UNKNOWN for a vanished task or one older than 24 h.
// Other areas call `createDashscopeTask(ctx, spec)` and answer with `taskCreatedReply(...)`.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { SimContext } from '../context.ts';
import { markerIn } from '../faults.ts';
import { requestId, sendJson } from '../http-util.ts';
import type { SimRequest, SimRouter } from '../router.ts';
import { nativeError } from './errors.ts';
import { dashscopeAccountOf } from '../auth.ts';
import { takeQuery } from './query-budget.ts';

export type DashscopeTaskFault = 'fail-task' | 'stay-running' | 'vanish' | 'suspend' | null;
export type DashscopeTaskStatus = 'PENDING' | 'RUNNING' | 'SUSPENDED' | 'SUCCEEDED' | 'FAILED' | 'CANCELED' | 'UNKNOWN';

export interface DashscopeTaskResult {
  /** Merged into `output` at SUCCEEDED (e.g. {video_url} or {results: [...]}). */
  output: Record<string, unknown>;
  /** Top-level `usage` at SUCCEEDED. */
  usage: Record<string, unknown>;
}

export interface DashscopeTaskSpec {
  /** Free label for tests ('video-synthesis', 'image-synthesis' …). */
  area: string;
  /** The account that created it (dashscopeAccountOf): only that account's keys can see it. Default `main`. */
  account?: string;
  model: string;
  fault: DashscopeTaskFault;
  /** Defaults to ctx.opts.taskDurationMs. */
  durationMs?: number;
  /** Called once, when the task first reports SUCCEEDED (so result URL expiry counts from the end). */
  succeed(task: DashscopeTask): DashscopeTaskResult;
  /** Failure shown at FAILED (default InternalError.Algo). */
  failure?: { code: string; message: string };
  /** Extra `output` fields shown in every state (e.g. orig_prompt). */
  extra?: Record<string, unknown>;
}

export interface DashscopeTask {
  id: string;
  spec: DashscopeTaskSpec;
  createdAt: number;
  scheduledAt: number;
  finishAt: number;
  canceled: boolean;
  result: DashscopeTaskResult | null;
  /** How many times the task was queried (tests: the gateway did not poll one by one forever). */
  queries: number;
  /** When it was last queried (its creation until then), and the longest time between two queries. */
  lastQueryAt: number;
  maxGapMs: number;
}

const KEY = 'dashscope-tasks';
const DAY_MS = 24 * 3600_000;

export function dashscopeTaskStore(ctx: SimContext): Map<string, DashscopeTask> {
  let m = ctx.state.get(KEY) as Map<string, DashscopeTask> | undefined;
  if (!m) {
    m = new Map();
    ctx.state.set(KEY, m);
  }
  return m;
}

export function createDashscopeTask(ctx: SimContext, spec: DashscopeTaskSpec): DashscopeTask {
  const now = Date.now();
  const d = spec.durationMs ?? ctx.opts.taskDurationMs;
  const task: DashscopeTask = {
    id: randomUUID(),
    spec,
    createdAt: now,
    scheduledAt: now + Math.floor(d * 0.2),
    finishAt: now + d,
    canceled: false,
    result: null,
    queries: 0,
    lastQueryAt: now,
    maxGapMs: 0,
  };
  dashscopeTaskStore(ctx).set(task.id, task);
  return task;
}

/** The task fault for a creation request: a run-wide/marker fault on the request, or a marker in the body. */
export function taskFaultOf(req: SimRequest): DashscopeTaskFault {
  const f = req.fault ?? markerIn(req.raw.toString('utf8'));
  const k = f?.kind;
  return k === 'fail-task' || k === 'stay-running' || k === 'vanish' || k === 'suspend' ? k : null;
}

export function statusOf(t: DashscopeTask, now = Date.now()): DashscopeTaskStatus {
  if (t.spec.fault === 'vanish' && now >= t.scheduledAt) return 'UNKNOWN';
  if (now - t.createdAt > DAY_MS) return 'UNKNOWN';
  if (t.canceled) return 'CANCELED';
  if (now < t.scheduledAt) return 'PENDING';
  // Suspended by the platform for the first half of its run, then it goes on.
  if (t.spec.fault === 'suspend' && now < (t.scheduledAt + t.finishAt) / 2) return 'SUSPENDED';
  if (t.spec.fault === 'stay-running' || now < t.finishAt) return 'RUNNING';
  return t.spec.fault === 'fail-task' ? 'FAILED' : 'SUCCEEDED';
}

export const fmt = (ms: number) => new Date(ms + 8 * 3600_000).toISOString().replace('T', ' ').replace('Z', ''); // Beijing time, as the API shows

/** The creation answer every async DashScope endpoint gives. */
export function taskCreatedReply(res: ServerResponse, t: DashscopeTask): void {
  sendJson(res, 200, { output: { task_id: t.id, task_status: 'PENDING' }, request_id: requestId() });
}

export function taskQueryBody(t: DashscopeTask, now = Date.now()): Record<string, unknown> {
  const status = statusOf(t, now);
  if (status === 'UNKNOWN') return { request_id: requestId(), output: { task_id: t.id, task_status: 'UNKNOWN' } };
  const output: Record<string, unknown> = {
    task_id: t.id,
    task_status: status,
    submit_time: fmt(t.createdAt),
    ...(t.spec.extra ?? {}),
  };
  if (status !== 'PENDING') output.scheduled_time = fmt(t.scheduledAt);
  const body: Record<string, unknown> = { request_id: requestId(), output };
  if (status === 'SUCCEEDED') {
    t.result ??= t.spec.succeed(t);
    Object.assign(output, t.result.output, { end_time: fmt(t.finishAt) });
    body.usage = t.result.usage;
  } else if (status === 'FAILED') {
    const f = t.spec.failure ?? {
      code: 'InternalError.Algo',
      message: 'An internal error occurred while generating the video.',
    };
    Object.assign(output, { end_time: fmt(t.finishAt), code: f.code, message: f.message });
  } else if (status === 'CANCELED') {
    output.end_time = fmt(now);
  }
  return body;
}

/** The task when the request's account owns it: another account's task id reads as one it never had. */
function ownTask(ctx: SimContext, req: SimRequest, id: string): DashscopeTask | undefined {
  const t = dashscopeTaskStore(ctx).get(id);
  return t && (t.spec.account ?? 'main') === dashscopeAccountOf(req.req, ctx.opts.dashscopeKeys) ? t : undefined;
}

export function registerDashscopeTasks(router: SimRouter, ctx: SimContext): void {
  router.on('GET', '/api/v1/tasks/:id', (req, res) => {
    if (!takeQuery(ctx, req.req, res, 'single')) return;
    const t = ownTask(ctx, req, req.params.id ?? '');
    // An id the account never had reads as UNKNOWN too (HTTP 200), as the API does for expired ids.
    if (!t)
      return sendJson(res, 200, {
        request_id: requestId(),
        output: { task_id: req.params.id, task_status: 'UNKNOWN' },
      });
    const now = Date.now();
    t.queries += 1;
    t.maxGapMs = Math.max(t.maxGapMs, now - t.lastQueryAt);
    t.lastQueryAt = now;
    sendJson(res, 200, taskQueryBody(t, now));
  });
  router.on('POST', '/api/v1/tasks/:id/cancel', (req, res) => {
    const t = ownTask(ctx, req, req.params.id ?? '');
    if (!t) return nativeError(res, 404, 'NotFound', 'Task not found.');
    if (statusOf(t) !== 'PENDING')
      return nativeError(res, 400, 'UnsupportedOperation', 'Only PENDING tasks can be canceled.');
    t.canceled = true;
    sendJson(res, 200, { request_id: requestId() });
  });
}
