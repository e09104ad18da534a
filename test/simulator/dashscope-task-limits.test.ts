// What a real Alibaba Cloud account enforces on async tasks, on by default in the simulator: 20 task queries per
// second per account (single and list alike, shared by every key of the account), the list endpoint's shape and
// filters, tasks visible to their own account only, and SUSPENDED.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { dashscopeQueryStats } from '../../simulator/dashscope/query-budget.ts';
import { parseListTime } from '../../simulator/dashscope/task-list.ts';
import { useSimulator } from '../support/simulator.ts';

const OTHER_KEY = 'sk-sim-other-account-key-000000000';
const SAME_ACCOUNT_KEY = 'sk-sim-main-account-second-key-000';
const s = useSimulator({ taskDurationMs: 1500, dashscopeKeys: { [OTHER_KEY]: 'other', [SAME_ACCOUNT_KEY]: 'main' } });

const auth = (key = DEFAULT_SIM_KEYS.dashscopeApiKey) => ({ authorization: `Bearer ${key}` });
const PATH = '/api/v1/services/aigc/video-generation/video-synthesis';

async function create(prompt = 'a cat', key?: string): Promise<string> {
  const r = await fetch(s.sim.url + PATH, {
    method: 'POST',
    headers: { ...auth(key), 'content-type': 'application/json', 'x-dashscope-async': 'enable' },
    body: JSON.stringify({ model: 'wan2.7-t2v', input: { prompt }, parameters: { duration: 5 } }),
  });
  return ((await r.json()) as { output: { task_id: string } }).output.task_id;
}

const get = (path: string, key?: string) => fetch(s.sim.url + path, { headers: auth(key) });
const beijing = (ms: number) => new Date(ms + 8 * 3600_000).toISOString().replace(/[-:T]/g, '').slice(0, 14);

describe('simulated DashScope account limits', () => {
  it('answers 20 task queries per second per account, shared by its keys, then 429 Throttling.RateQuota', async () => {
    const id = await create();
    await new Promise((r) => setTimeout(r, 1100)); // a fresh window
    const before = dashscopeQueryStats(s.sim.ctx).get('main')?.throttled ?? 0;
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        get(i % 2 ? `/api/v1/tasks/${id}` : '/api/v1/tasks?page_size=5', i % 3 ? undefined : SAME_ACCOUNT_KEY),
      ),
    );
    // On a loaded host the 30 may spread over more than one second: at most 20 are answered per second begun.
    const seconds = Math.ceil((Date.now() - started) / 1000);
    const statuses = answers.map((r) => r.status);
    const ok = statuses.filter((x) => x === 200).length;
    expect(ok).toBeGreaterThanOrEqual(20);
    expect(ok).toBeLessThanOrEqual(20 * seconds);
    expect(statuses.filter((x) => x === 429)).toHaveLength(30 - ok);
    const stats = dashscopeQueryStats(s.sim.ctx).get('main')!;
    expect(stats.throttled - before).toBe(30 - ok);
    expect(stats.peakPerSecond).toBe(20);
    if (seconds === 1)
      expect(await answers[statuses.indexOf(429)]!.json()).toMatchObject({ code: 'Throttling.RateQuota' });
    // Another account has its own budget.
    expect((await get('/api/v1/tasks', OTHER_KEY)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await get(`/api/v1/tasks/${id}`)).status).toBe(200);
  });

  it("lists the account's tasks newest first with status and no result, filtered by status and creation time", async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const t0 = Date.now();
    const a = await create('first');
    const b = await create('second');
    const other = await create('not ours', OTHER_KEY);
    const from = beijing(t0 - 1000);
    const r = await get(`/api/v1/tasks?page_no=1&page_size=100&start_time=${from}`);
    const body = (await r.json()) as {
      data: Array<Record<string, unknown>>;
      total: number;
      total_page: number;
      page_no: number;
      page_size: number;
    };
    const ids = body.data.map((d) => d.task_id);
    expect(ids.slice(0, 2).sort()).toEqual([a, b].sort());
    expect(ids).not.toContain(other);
    expect(body).toMatchObject({ total: 2, total_page: 1, page_no: 1, page_size: 100 });
    expect(body.data[0]).toMatchObject({ status: 'PENDING', model_name: 'wan2.7-t2v' });
    expect(body.data[0]).not.toHaveProperty('task_status');
    expect(body.data[0]).not.toHaveProperty('video_url');
    // Another account's task reads as unknown to this account.
    expect(
      ((await (await get(`/api/v1/tasks/${other}`)).json()) as { output: { task_status: string } }).output.task_status,
    ).toBe('UNKNOWN');
    await new Promise((r) => setTimeout(r, 1700));
    const done = (await (await get(`/api/v1/tasks?status=SUCCEEDED&page_size=100&start_time=${from}`)).json()) as {
      data: Array<Record<string, unknown>>;
    };
    expect(done.data.map((d) => d.task_id).sort()).toEqual([a, b].sort());
    expect(done.data[0]).toHaveProperty('end_time');
    const none = (await (
      await get(`/api/v1/tasks?status=SUCCEEDED&start_time=${beijing(Date.now() + 60_000)}`)
    ).json()) as { data: unknown[] };
    expect(none.data).toEqual([]);
  });

  it('refuses a page larger than 100, an unknown status and a malformed time', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    for (const q of ['page_size=101', 'status=DONE', 'start_time=2026-01-01']) {
      const r = await get(`/api/v1/tasks?${q}`);
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ code: 'InvalidParameter' });
    }
    expect(parseListTime('20260420175517')).toBe(Date.UTC(2026, 3, 20, 9, 55, 17));
  });

  it('a suspended task reads SUSPENDED for a while, then goes on to SUCCEEDED', async () => {
    const id = await create('sim-fault:suspend');
    const seen = new Set<string>();
    for (let i = 0; i < 100 && !seen.has('SUCCEEDED'); i++) {
      const r = await get(`/api/v1/tasks/${id}`);
      if (r.status === 200) seen.add(((await r.json()) as { output: { task_status: string } }).output.task_status);
      await new Promise((res) => setTimeout(res, 60));
    }
    expect(seen.has('SUSPENDED')).toBe(true);
    expect(seen.has('SUCCEEDED')).toBe(true);
  });
});
