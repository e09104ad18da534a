// Family A (/vidx/v1) calls as the tests make them: harness options with fast tasks and callbacks, one call
// with its envelope, and waiting for a task to reach a status.
import { expect } from 'vitest';
import type { VidxEnvelope } from './error-shapes.ts';
import type { Harness, HarnessOptions } from './harness.ts';
import { FAST_TASK_ENV } from './videos.ts';

/** Task and callback timings short enough for a test to watch a family A task finish and call back. */
export const FAST_VIDX_ENV = {
  ...FAST_TASK_ENV,
  TOLLWAY_CALLBACK_TICK_MS: '40',
  TOLLWAY_CALLBACK_BACKOFF_MS: '60',
};

/** Harness options for the family A tests: fast tasks and callbacks (plus the file's own options). */
export function vidxHarness(opts: HarnessOptions = {}): HarnessOptions {
  return { ...opts, sim: { taskDurationMs: 250, ...opts.sim }, env: { ...FAST_VIDX_ENV, ...opts.env } };
}

export interface TaskData {
  task_id: string;
  task_status: string;
  task_status_msg?: string;
  task_info: { external_task_id?: string };
  model_name?: string;
  session_id?: string;
  created_at: number;
  updated_at: number;
  task_result: { videos?: Array<{ id: string; url: string; duration: string; session_id?: string }> };
}

/** One family A call; the envelope's request id must be the header's. */
export async function call<T = Record<string, unknown>>(
  h: Harness,
  token: string,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; body: VidxEnvelope<T>; rid: string | null }> {
  const r = await h.fetch(path, { method, token, ...(json === undefined ? {} : { json }) });
  const body = (await r.json()) as VidxEnvelope<T>;
  const rid = r.headers.get('x-gateway-request-id');
  expect(body.request_id).toBe(rid);
  return { status: r.status, body, rid };
}

/** Poll a query path until the task reaches `status` (never a timed assertion: it just waits). */
export async function waitStatus(h: Harness, token: string, path: string, status: string): Promise<TaskData> {
  let last: TaskData | null = null;
  for (let i = 0; i < 200; i++) {
    const r = await call<TaskData>(h, token, 'GET', path);
    last = r.body.data;
    if (last?.task_status === status) return last;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`task at ${path} never reached ${status}; last ${JSON.stringify(last)}`);
}

/** Poll a family A task (`GET <path>/<id>`) until it reaches `want` (or ~6 s pass); the last status seen. */
export async function waitForFamilyATask(
  h: Harness,
  token: string,
  path: string,
  id: string,
  want: 'succeed' | 'failed',
): Promise<string> {
  let state = '';
  for (let i = 0; i < 200 && state !== want; i++) {
    const q = await h.fetch(`${path}/${id}`, { token });
    state = ((await q.json()) as { data: { task_status: string } }).data.task_status;
    if (state !== want) await new Promise((res) => setTimeout(res, 30));
  }
  return state;
}
