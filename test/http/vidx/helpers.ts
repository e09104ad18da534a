// Shared bits for the family A tests: a harness with fast tasks and callbacks, and envelope helpers.
import { expect } from 'vitest';
import { startHarness, type Harness, type HarnessOptions } from '../../helpers/harness.ts';

export const FAST_ENV = {
  TOLLWAY_TASK_TICK_MS: '40',
  TOLLWAY_TASK_POLL_BASE_MS: '40',
  TOLLWAY_TASK_POLL_MAX_MS: '200',
  TOLLWAY_TASK_REFRESH_STALE_MS: '0',
  TOLLWAY_CALLBACK_TICK_MS: '40',
  TOLLWAY_CALLBACK_BACKOFF_MS: '60',
};

export function startFamilyA(opts: HarnessOptions = {}): Promise<Harness> {
  return startHarness({ ...opts, sim: { taskDurationMs: 250, ...opts.sim }, env: { ...FAST_ENV, ...opts.env } });
}

export interface Env<T = Record<string, unknown>> {
  code: number;
  message: string;
  request_id: string;
  data: T;
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

export async function call<T = Record<string, unknown>>(h: Harness, token: string, method: string, path: string, json?: unknown): Promise<{ status: number; body: Env<T>; rid: string | null }> {
  const r = await h.fetch(path, { method, token, ...(json === undefined ? {} : { json }) });
  const body = (await r.json()) as Env<T>;
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

export async function until(cond: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await cond()) return;
    await new Promise((res) => setTimeout(res, 20));
  }
  throw new Error(`never happened: ${what}`);
}
