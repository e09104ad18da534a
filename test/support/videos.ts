// The /v1/videos calls as the tests make them: create, read, wait for a terminal state, and the body the
// gateway sent to the simulator's video-synthesis endpoint.
import { expect } from 'vitest';
import type { Harness } from './harness.ts';

/** Task timings short enough for a test to watch a video task finish. */
export const FAST_TASK_ENV = {
  TOLLWAY_TASK_TICK_MS: '40',
  TOLLWAY_TASK_POLL_BASE_MS: '40',
  TOLLWAY_TASK_POLL_MAX_MS: '200',
  TOLLWAY_TASK_REFRESH_STALE_MS: '0',
};

export interface VideoObj {
  id: string;
  video_id: string;
  object: string;
  status: string;
  model: string;
  progress: number;
  created_at: number;
  expires_at: number | null;
  url?: string;
  seconds: string | null;
  resolution: string | null;
  error: { code: string; message: string } | null;
  upstream_request_id?: string;
}

export async function createVideo(
  h: Harness,
  token: string,
  body: Record<string, unknown>,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await h.fetch('/v1/videos', { method: 'POST', token, json: body });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

export async function getVideo(h: Harness, token: string, id: string): Promise<{ status: number; json: VideoObj }> {
  const r = await h.fetch(`/v1/videos/${id}`, { token });
  return { status: r.status, json: (await r.json()) as VideoObj };
}

/** Poll GET until a terminal status (each GET may refresh the task from the upstream). */
export async function waitTerminal(h: Harness, token: string, id: string, maxPolls = 200): Promise<VideoObj> {
  for (let i = 0; i < maxPolls; i++) {
    const { status, json } = await getVideo(h, token, id);
    expect(status).toBe(200);
    if (['completed', 'failed', 'cancelled'].includes(json.status)) return json;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`video ${id} never reached a terminal state`);
}

/** The last body the gateway sent to the video-synthesis endpoint. */
export function lastSynthesisBody(h: Harness): {
  model: string;
  input: { prompt?: string; media?: Array<{ type: string; url: string }> };
  parameters: Record<string, unknown>;
} {
  const reqs = h.sim.requestsTo('video-synthesis');
  const last = reqs[reqs.length - 1];
  if (!last) throw new Error('no video-synthesis request reached the simulator');
  return last.body as ReturnType<typeof lastSynthesisBody>;
}
