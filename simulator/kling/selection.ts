// Multi-element selection workflow: init a session from a video, add/delete/clear marked areas
// per frame, preview. Sessions live 24 hours; every reply carries `data.status` (0 = ok).
import type { ServerResponse } from 'node:http';
import type { SimContext } from '../context.ts';
import type { SimRequest, SimRouter } from '../router.ts';
import { badParam, isObj, klingErr, klingOk, notFound, SimParamError } from './envelope.ts';
import { klingState, numericId, statusOf, type KlingSession, type KlingState } from './state.ts';
import { checkPoints } from './validate.ts';

export const SESSION_TTL_MS = 24 * 3600 * 1000;
const MAX_MARKED_FRAMES = 10;
// A 1×1 transparent PNG stands in for the mask image.
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

function sessionOf(s: KlingState, body: Record<string, unknown>, res: ServerResponse): KlingSession | null {
  if (typeof body.session_id !== 'string' || !body.session_id) {
    badParam(res, 'session_id is required');
    return null;
  }
  const session = s.sessions.get(body.session_id);
  if (!session) {
    notFound(res, 'session not found');
    return null;
  }
  if (session.expiresAt <= Date.now()) {
    badParam(res, 'session has expired');
    return null;
  }
  return session;
}

function frameOf(body: Record<string, unknown>, session: KlingSession): number {
  const f = body.frame_index;
  if (typeof f !== 'number' || !Number.isInteger(f) || f < 0 || f >= session.totalFrame) {
    throw new SimParamError(`frame_index must be an integer in [0, ${session.totalFrame - 1}]`);
  }
  return f;
}

function maskReply(session: KlingSession, frameIndex: number): Record<string, unknown> {
  const objects = session.selections.filter((x) => x.frameIndex === frameIndex);
  return {
    status: 0,
    session_id: session.id,
    res: {
      frame_index: frameIndex,
      rle_mask_list: objects.map((_o, i) => ({
        object_id: i,
        rle_mask: { size: [session.height, session.width], counts: `${session.width * session.height - 64}8` },
        png_mask: { size: [session.height, session.width], base64: PNG_1X1 },
      })),
    },
  };
}

const samePoints = (a: Array<{ x: number; y: number }>, b: Array<{ x: number; y: number }>) =>
  a.length === b.length && a.every((p, i) => p.x === b[i]!.x && p.y === b[i]!.y);

export function registerKlingSelection(router: SimRouter, ctx: SimContext): void {
  const s = klingState(ctx);
  const route = (name: string, fn: (body: Record<string, unknown>, res: ServerResponse) => void) =>
    router.on('POST', `/v1/videos/multi-elements/${name}`, (req: SimRequest, res: ServerResponse) => {
      if (!isObj(req.json)) return klingErr(res, 400, 1200, 'request body is not a valid JSON object');
      try {
        fn(req.json, res);
      } catch (e) {
        if (e instanceof SimParamError) return badParam(res, e.message);
        throw e;
      }
    });

  route('init-selection', (body, res) => {
    const hasId = body.video_id !== undefined && body.video_id !== '';
    const hasUrl = body.video_url !== undefined && body.video_url !== '';
    if (hasId === hasUrl) return badParam(res, 'exactly one of video_id and video_url is required');
    let duration = 5;
    if (hasId) {
      const v = typeof body.video_id === 'string' ? s.videos.get(body.video_id) : undefined;
      if (!v || statusOf(v.task) !== 'succeed') return notFound(res, 'video not found');
      duration = Number(v.video.duration);
    } else if (
      typeof body.video_url !== 'string' ||
      !/^https?:\/\/[^\s]+\.(mp4|mov)(\?[^\s]*)?$/i.test(body.video_url)
    ) {
      return badParam(res, 'video_url must be an http(s) URL of an mp4 or mov file');
    }
    const now = Date.now();
    const fps = 30;
    const session: KlingSession = {
      id: numericId(),
      createdAt: now,
      expiresAt: now + SESSION_TTL_MS,
      fps,
      duration,
      width: 1280,
      height: 720,
      totalFrame: Math.round(duration * fps),
      selections: [],
    };
    s.sessions.set(session.id, session);
    klingOk(res, {
      status: 0,
      session_id: session.id,
      fps,
      original_duration: duration,
      width: session.width,
      height: session.height,
      total_frame: session.totalFrame,
      normalized_video: `${ctx.baseUrl}/kling-cdn/normalized-${session.id}.mp4`,
    });
  });

  route('add-selection', (body, res) => {
    const session = sessionOf(s, body, res);
    if (!session) return;
    const frameIndex = frameOf(body, session);
    const points = checkPoints(body.points);
    const frames = new Set(session.selections.map((x) => x.frameIndex));
    if (!frames.has(frameIndex) && frames.size >= MAX_MARKED_FRAMES)
      return badParam(res, `at most ${MAX_MARKED_FRAMES} frames can be marked`);
    session.selections.push({ frameIndex, points });
    klingOk(res, maskReply(session, frameIndex));
  });

  route('delete-selection', (body, res) => {
    const session = sessionOf(s, body, res);
    if (!session) return;
    const frameIndex = frameOf(body, session);
    const points = checkPoints(body.points);
    const idx = session.selections.findIndex((x) => x.frameIndex === frameIndex && samePoints(x.points, points));
    if (idx < 0) return badParam(res, 'the points do not match a selection on this frame');
    session.selections.splice(idx, 1);
    klingOk(res, maskReply(session, frameIndex));
  });

  route('clear-selection', (body, res) => {
    const session = sessionOf(s, body, res);
    if (!session) return;
    session.selections = [];
    klingOk(res, { status: 0, session_id: session.id });
  });

  route('preview-selection', (body, res) => {
    const session = sessionOf(s, body, res);
    if (!session) return;
    if (session.selections.length === 0) return badParam(res, 'no area is selected in this session');
    const tag = numericId();
    klingOk(res, {
      status: 0,
      session_id: session.id,
      res: {
        video: `${ctx.baseUrl}/kling-cdn/preview-${tag}.mp4`,
        video_cover: `${ctx.baseUrl}/kling-cdn/preview-${tag}.jpg`,
        tracking_output: `${ctx.baseUrl}/kling-cdn/tracking-${tag}.mp4`,
      },
    });
  });
}
