// Kling task routes: create (text2video, omni-video, multi-elements), query by task_id or
// external_task_id, list; progression by the clock; callbacks POSTed at the terminal state.
import type { ServerResponse } from 'node:http';
import type { SimContext } from '../context.ts';
import { markerIn, type FaultSpec } from '../faults.ts';
import type { SimRequest, SimRouter } from '../router.ts';
import { badParam, isObj, klingErr, klingOk, notFound, SimParamError } from './envelope.ts';
import {
  isVanished,
  klingState,
  numericId,
  statusOf,
  taskData,
  type KlingState,
  type KlingTask,
  type KlingTaskFault,
  type KlingTaskKind,
} from './state.ts';
import { holdSlot, refuseOverLimit } from './slots.ts';
import {
  checkCommon,
  checkDuration,
  checkMode,
  checkOmni,
  checkPrompt,
  checkText2Video,
  type Created,
} from './validate.ts';
import { SIM_VIDEO_BYTES } from '../dashscope/results-video.ts';

const TASK_FAULTS = ['fail-task', 'stay-running', 'vanish'];

/** The `deduct` fault's units (`sim-fault:deduct:9`): the task reports that deduction whatever it made. */
function deductionFault(req: SimRequest, body: Record<string, unknown>): number | null {
  const f = req.fault?.kind === 'deduct' ? req.fault : markerIn(JSON.stringify(body));
  return f?.kind === 'deduct' && f.arg !== undefined ? f.arg : null;
}

function taskFault(req: SimRequest, body: Record<string, unknown>): KlingTaskFault {
  const pick = (f: FaultSpec | null) => (f && TASK_FAULTS.includes(f.kind) ? (f.kind as KlingTaskFault) : null);
  return pick(req.fault) ?? pick(markerIn(JSON.stringify(body)));
}

/** Creation bodies are JSON objects; anything else is a 1200 (bad request). */
function bodyOf(req: SimRequest, res: ServerResponse): Record<string, unknown> | null {
  if (!isObj(req.json)) {
    klingErr(res, 400, 1200, 'request body is not a valid JSON object');
    return null;
  }
  return req.json;
}

export function createTask(
  ctx: SimContext,
  s: KlingState,
  kind: KlingTaskKind,
  body: Record<string, unknown>,
  fields: {
    model: string;
    mode: string;
    seconds: number;
    sound?: boolean;
    resolution?: string | null;
    deduction?: number | null;
    sessionId?: string | null;
    fault: KlingTaskFault;
  },
): KlingTask {
  const now = Date.now();
  const id = numericId();
  const t: KlingTask = {
    id,
    kind,
    model: fields.model,
    mode: fields.mode,
    externalTaskId: typeof body.external_task_id === 'string' ? body.external_task_id : null,
    callbackUrl: typeof body.callback_url === 'string' ? body.callback_url : null,
    sessionId: fields.sessionId ?? null,
    watermark: isObj(body.watermark_info) && body.watermark_info.enabled === true,
    createdAt: now,
    finishAt: now + ctx.opts.taskDurationMs,
    fault: fields.fault,
    seconds: fields.seconds,
    sound: fields.sound ?? false,
    resolution: fields.resolution ?? null,
    deduction: fields.deduction ?? null,
    videos: [],
  };
  const videoId = numericId();
  const video = {
    id: videoId,
    url: `${ctx.baseUrl}/kling-cdn/${videoId}.mp4`,
    watermark_url: `${ctx.baseUrl}/kling-cdn/${videoId}-wm.mp4`,
    // The real API reports the produced length, a little over the requested seconds.
    duration: (fields.seconds + 0.1).toFixed(1),
    ...(t.sessionId ? { session_id: t.sessionId } : {}),
  };
  t.videos.push(video);
  s.tasks.set(id, t);
  s.videos.set(videoId, { task: t, video });
  if (t.externalTaskId) s.byExternal.set(t.externalTaskId, id);
  holdSlot(s, t);
  scheduleCallback(s, t);
  return t;
}

/** At the terminal state, POST the query's data object to callback_url (a few retries on failure). */
function scheduleCallback(s: KlingState, t: KlingTask): void {
  if (!t.callbackUrl || t.fault === 'stay-running' || t.fault === 'vanish') return;
  const send = async (attempt: number): Promise<void> => {
    const body = taskData(t);
    let status: number | null = null;
    try {
      const r = await fetch(t.callbackUrl!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(5000),
      });
      status = r.status;
      await r.arrayBuffer().catch(() => undefined);
    } catch {
      status = null;
    }
    s.callbacks.push({ url: t.callbackUrl!, body, status, at: Date.now() });
    if ((status === null || status >= 300) && attempt < 3) later(s, () => void send(attempt + 1), 200 * 2 ** attempt);
  };
  later(s, () => void send(0), Math.max(0, t.finishAt - Date.now()) + 5);
}

function later(s: KlingState, fn: () => void, ms: number): void {
  const timer = setTimeout(() => {
    s.timers.delete(timer);
    fn();
  }, ms);
  timer.unref();
  s.timers.add(timer);
}

function findTask(s: KlingState, kind: KlingTaskKind, idOrExternal: string): KlingTask | null {
  const t = s.tasks.get(idOrExternal) ?? s.tasks.get(s.byExternal.get(idOrExternal) ?? '');
  if (!t || t.kind !== kind || isVanished(t)) return null;
  return t;
}

function intParam(q: URLSearchParams, name: string, def: number, max: number): number | string {
  const raw = q.get(name);
  if (raw === null || raw === '') return def;
  if (!/^\d+$/.test(raw)) return `${name} must be an integer`;
  const n = Number(raw);
  if (n < 1 || n > max) return `${name} must be between 1 and ${max}`;
  return n;
}

function registerQueryAndList(router: SimRouter, ctx: SimContext, kind: KlingTaskKind): void {
  const s = klingState(ctx);
  router.on('GET', `/v1/videos/${kind}/:id`, (req, res) => {
    const t = findTask(s, kind, req.params.id ?? '');
    if (!t) return notFound(res, 'task not found');
    klingOk(res, taskData(t));
  });
  router.on('GET', `/v1/videos/${kind}`, (req, res) => {
    const pageNum = intParam(req.query, 'pageNum', 1, 1000);
    const pageSize = intParam(req.query, 'pageSize', 30, 500);
    if (typeof pageNum === 'string') return badParam(res, pageNum);
    if (typeof pageSize === 'string') return badParam(res, pageSize);
    const all = [...s.tasks.values()]
      .filter((t) => t.kind === kind && !isVanished(t))
      .sort((a, b) => b.createdAt - a.createdAt);
    klingOk(
      res,
      all.slice((pageNum - 1) * pageSize, pageNum * pageSize).map((t) => taskData(t)),
    );
  });
}

function creationReply(res: ServerResponse, t: KlingTask): void {
  klingOk(res, {
    task_id: t.id,
    task_status: statusOf(t),
    task_info: t.externalTaskId ? { external_task_id: t.externalTaskId } : {},
    created_at: t.createdAt,
    updated_at: t.createdAt,
  });
}

function duplicateExternal(s: KlingState, body: Record<string, unknown>, res: ServerResponse): boolean {
  if (typeof body.external_task_id === 'string' && s.byExternal.has(body.external_task_id)) {
    badParam(res, 'external_task_id already exists');
    return true;
  }
  return false;
}

export function registerKlingTasks(router: SimRouter, ctx: SimContext): void {
  const s = klingState(ctx);
  const guarded = (fn: (req: SimRequest, res: ServerResponse) => void) => (req: SimRequest, res: ServerResponse) => {
    try {
      fn(req, res);
    } catch (e) {
      if (e instanceof SimParamError) return badParam(res, e.message);
      throw e;
    }
  };

  // text2video and omni-video: validate the body, refuse a reused external_task_id, create.
  const simpleCreation = (kind: 'text2video' | 'omni-video', check: (b: Record<string, unknown>) => Created) =>
    router.on(
      'POST',
      `/v1/videos/${kind}`,
      guarded((req, res) => {
        const body = bodyOf(req, res);
        if (!body) return;
        const v = check(body);
        if (duplicateExternal(s, body, res) || refuseOverLimit(ctx, s, v.model, res)) return;
        creationReply(
          res,
          createTask(ctx, s, kind, body, { ...v, fault: taskFault(req, body), deduction: deductionFault(req, body) }),
        );
      }),
    );
  simpleCreation('text2video', checkText2Video);
  simpleCreation('omni-video', checkOmni);

  router.on(
    'POST',
    '/v1/videos/multi-elements',
    guarded((req, res) => {
      const body = bodyOf(req, res);
      if (!body) return;
      if (body.model_name !== undefined && body.model_name !== 'kling-v1-6')
        return badParam(res, 'model_name must be kling-v1-6');
      if (typeof body.session_id !== 'string' || !body.session_id) return badParam(res, 'session_id is required');
      const session = s.sessions.get(body.session_id);
      if (!session) return notFound(res, 'session not found');
      if (session.expiresAt <= Date.now()) return badParam(res, 'session has expired');
      const mode = body.edit_mode;
      if (mode !== 'addition' && mode !== 'swap' && mode !== 'removal')
        return badParam(res, 'edit_mode must be addition, swap or removal');
      const images = body.image_list ?? [];
      if (!Array.isArray(images) || !images.every((i) => isObj(i) && typeof i.image === 'string' && i.image !== '')) {
        return badParam(res, 'image_list must be an array of {image}');
      }
      const [min, max] = mode === 'addition' ? [1, 2] : mode === 'swap' ? [1, 1] : [0, 0];
      if (images.length < min || images.length > max)
        return badParam(res, `image_list must have ${min === max ? min : `${min} to ${max}`} item(s) for ${mode}`);
      if (mode !== 'addition' && session.selections.length === 0)
        return badParam(res, 'no area is selected in this session');
      checkPrompt(body, true);
      checkCommon(body);
      const seconds = checkDuration(body, false);
      if (refuseOverLimit(ctx, s, 'kling-v1-6', res)) return;
      creationReply(
        res,
        createTask(ctx, s, 'multi-elements', body, {
          model: 'kling-v1-6',
          mode: checkMode(body, 'std'),
          seconds,
          sessionId: session.id,
          fault: taskFault(req, body),
        }),
      );
    }),
  );

  for (const kind of ['text2video', 'omni-video', 'multi-elements'] as const) registerQueryAndList(router, ctx, kind);

  // Result files: the same real sample MP4 the DashScope side serves.
  router.on('GET', '/kling-cdn/:file', (_req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': SIM_VIDEO_BYTES.length });
    res.end(SIM_VIDEO_BYTES);
  });
}
