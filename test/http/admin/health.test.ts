// GET /admin/health: each channel's breaker and its recent traffic (requests, errors, mean latency) from the request
// log, and the open async tasks by state — through real calls against the simulator, on the suite's dialect.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { createVideo, FAST_TASK_ENV } from '../../support/videos.ts';

const t = useHarness({ env: FAST_TASK_ENV, sim: { taskDurationMs: 60_000 } });

interface Health {
  recent_ms: number;
  channels: Array<{
    id: string;
    name: string;
    kind: string;
    enabled: boolean;
    breaker: { state: string };
    recent: { requests: number; errors: number; error_rate: number; mean_latency_ms: number | null };
  }>;
  open_tasks: Record<string, number>;
}

const health = async (): Promise<Health> => {
  const r = await t.h.admin('/admin/health');
  expect(r.status).toBe(200);
  return (await r.json()) as Health;
};
const chat = (token: string, content: string) =>
  t.h.fetch('/v1/chat/completions', {
    method: 'POST',
    token,
    json: { model: 'qwx3.7-plus', messages: [{ role: 'user', content }] },
  });

describe('GET /admin/health', () => {
  it("counts each channel's recent requests and upstream failures, shows its breaker, and the open tasks by state", async () => {
    const tok = await t.h.token({ name: 'health' });
    const before = await health();
    const dash = before.channels.find((c) => c.kind === 'dashscope')!;
    expect(dash).toMatchObject({ enabled: true, breaker: { state: 'closed' } });
    for (let i = 0; i < 3; i++) expect((await chat(tok.secret, `hello ${i}`)).status).toBe(200);
    // An upstream 500 is the channel's failure: a 5xx answer, counted against the last channel tried.
    expect((await chat(tok.secret, 'sim-fault:status:500')).status).toBeGreaterThanOrEqual(500);
    // A request refused before any upstream call belongs to no channel.
    expect(
      (
        await t.h.fetch('/v1/chat/completions', {
          method: 'POST',
          token: tok.secret,
          json: { model: 'qwx3.7-plus', messages: 'no' },
        })
      ).status,
    ).toBe(400);
    const video = await createVideo(t.h, tok.secret, { model: 'hhx-1.1-t2v', prompt: 'still running', seconds: 3 });
    expect(video.status).toBe(200);

    const after = await health();
    const d = after.channels.find((c) => c.id === dash.id)!;
    expect(d.recent.requests - dash.recent.requests).toBe(5); // 3 chats, the failed chat, the video creation
    expect(d.recent.errors - dash.recent.errors).toBe(1);
    expect(d.recent.error_rate).toBeCloseTo(d.recent.errors / d.recent.requests, 6);
    expect(d.recent.mean_latency_ms).toEqual(expect.any(Number));
    expect(Object.keys(after.open_tasks).sort()).toEqual(['in_progress', 'queued', 'submitting', 'waiting']);
    expect(
      after.open_tasks.queued! +
        after.open_tasks.in_progress! -
        (before.open_tasks.queued! + before.open_tasks.in_progress!),
    ).toBe(1);
    expect(after.recent_ms).toBe(300_000);
  });

  it('needs the admin key', async () => {
    const tok = await t.h.token({ name: 'health-client' });
    expect((await t.h.fetch('/admin/health', { token: tok.secret })).status).toBe(403);
    expect((await t.h.fetch('/admin/health', {})).status).toBe(401);
  });
});
