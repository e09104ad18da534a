// Shared checks for the fault tests: the family shape of an error, no leaks, and the ledger / request
// log state of one request (after the group-committed writers are flushed).
import { expect } from 'vitest';
import { DEFAULT_SIM_KEYS, startSimulator, type Simulator } from '../../simulator/index.ts';
import { createChannel } from '../../src/core/admin/channels.ts';
import type { Harness } from '../helpers/harness.ts';

/** Text that must never reach a client: upstream credentials, upstream addresses, stack traces, JWTs. */
export function expectNoLeak(h: Harness, text: string, extraSims: Simulator[] = []): void {
  for (const s of [h.sim, ...extraSims]) expect(text).not.toContain(new URL(s.url).host);
  expect(text).not.toContain(DEFAULT_SIM_KEYS.dashscopeApiKey);
  expect(text).not.toContain(DEFAULT_SIM_KEYS.klingSecretKey);
  expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{5,}\./);
  expect(text).not.toMatch(/at [\w.<>]+ \(.*:\d+:\d+\)/);
  expect(text).not.toMatch(/aliyuncs\.com|klingai\.com/);
}

/** Family B error body: `{error:{code, type, message (with the request id), request_id}}`. */
export function expectFamilyBError(text: string, rid: string | null, code: string): void {
  const body = JSON.parse(text) as { error: { code: string; type: string; message: string; request_id: string } };
  expect(body.error.code).toBe(code);
  expect(typeof body.error.type).toBe('string');
  expect(body.error.request_id).toBe(rid);
  expect(body.error.message).toContain(String(rid));
}

/** Family A error envelope: `{code (vendor, non-zero), message, request_id, data: null}`. */
export function expectFamilyAError(text: string, rid: string | null, vendorCode: number): void {
  const body = JSON.parse(text) as { code: number; message: string; request_id: string; data: unknown };
  expect(body.code).toBe(vendorCode);
  expect(body.request_id).toBe(rid);
  expect(body.data).toBeNull();
}

export async function flushWriters(h: Harness): Promise<void> {
  await h.gw.deps.meter.flush();
  await h.gw.deps.requestLog.flush();
}

/** Ledger rows of one request id (sync calls). */
export async function ledgerOfRequest(h: Harness, rid: string) {
  await flushWriters(h);
  return h.store.db.selectFrom('ledger').selectAll().where('request_id', '=', rid).execute();
}

/** The request-log row of one request, waiting for the writer (it is written after the response). */
export async function requestLogRow(h: Harness, rid: string) {
  for (let i = 0; i < 100; i++) {
    await flushWriters(h);
    const row = await h.store.db.selectFrom('request_log').selectAll().where('request_id', '=', rid).executeTakeFirst();
    if (row) return row;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no request_log row for ${rid}`);
}

/** Poll a family A task (`GET <path>/<id>`) until it reaches `want` (or ~6 s pass); the last status seen. */
export async function waitForFamilyATask(h: Harness, token: string, path: string, id: string, want: 'succeed' | 'failed'): Promise<string> {
  let state = '';
  for (let i = 0; i < 200 && state !== want; i++) {
    const q = await h.fetch(`${path}/${id}`, { token });
    state = ((await q.json()) as { data: { task_status: string } }).data.task_status;
    if (state !== want) await new Promise((res) => setTimeout(res, 30));
  }
  return state;
}

/** A second simulator and a DashScope + Kling channel on it (lower priority than the harness's own unless said). */
export async function secondUpstream(h: Harness, opts: { priority?: number; name?: string } = {}): Promise<{ sim: Simulator; close(): Promise<void> }> {
  const sim = await startSimulator({ taskDurationMs: 300 });
  const name = opts.name ?? 'backup';
  const deps = h.gw.deps;
  await createChannel(deps, { name: `${name}-dashscope`, kind: 'dashscope', baseUrl: sim.url, keys: { apiKey: DEFAULT_SIM_KEYS.dashscopeApiKey }, models: null, priority: opts.priority ?? -1 });
  await createChannel(deps, { name: `${name}-kling`, kind: 'kling', baseUrl: sim.url, keys: { accessKey: DEFAULT_SIM_KEYS.klingAccessKey, secretKey: DEFAULT_SIM_KEYS.klingSecretKey }, models: null, priority: opts.priority ?? -1 });
  return { sim, close: () => sim.close() };
}

/** A port nothing listens on (connection refused). */
export const DEAD_URL = 'http://127.0.0.1:9';
