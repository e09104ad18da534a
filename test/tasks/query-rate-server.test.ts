// A DashScope account allows 20 task queries per second, shared by all its keys: 150 open /v1/videos tasks, each read
// by its client every 2 s through the real server, all complete, each charged once, while the simulated account never
// sees more than 20 queries in a second and throttles none. The account's task list, not one query per task, tells the
// gateway which tasks finished.
import { describe, expect, it } from 'vitest';
import { dashscopeQueryStats } from '../../simulator/dashscope/query-budget.ts';
import { dashscopeTaskStore } from '../../simulator/dashscope/tasks.ts';
import { useHarness } from '../support/harness.ts';
import { flushWriters } from '../support/store-rows.ts';
import { createVideo, getVideo } from '../support/videos.ts';

const VIDEOS = 150;

describe('DashScope query rate with many open tasks', () => {
  const t = useHarness({
    sim: { taskDurationMs: 8000 },
    env: {
      TOLLWAY_TASK_TICK_MS: '100',
      TOLLWAY_TASK_POLL_BASE_MS: '500',
      TOLLWAY_TASK_POLL_MAX_MS: '5000',
      TOLLWAY_TASK_REFRESH_STALE_MS: '1000',
      TOLLWAY_TASK_LIST_INTERVAL_MS: '1000',
    },
  });

  it(`${VIDEOS} open videos read by their clients every 2 s: all complete, charged once, the account never throttled`, async () => {
    const tok = await t.h.token({ name: 'many' });
    const ids: string[] = [];
    for (let i = 0; i < VIDEOS; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(10, VIDEOS - i) }, () =>
          createVideo(t.h, tok.secret, { model: 'wnx2.7-t2v', prompt: 'a cat', seconds: 2, resolution: '720p' }),
        ),
      );
      for (const b of batch) {
        expect(b.status).toBe(200);
        ids.push(b.json.id as string);
      }
    }
    const seen = new Map<string, number>();
    await Promise.all(
      ids.map(async (id, i) => {
        await new Promise((r) => setTimeout(r, (i * 13) % 2000));
        for (let n = 0; n < 200; n++) {
          const v = await getVideo(t.h, tok.secret, id);
          expect(v.status).toBe(200);
          if (v.json.status === 'completed') return void seen.set(id, Date.now());
          expect(['queued', 'in_progress']).toContain(v.json.status);
          await new Promise((r) => setTimeout(r, 2000));
        }
      }),
    );
    expect(seen.size).toBe(VIDEOS);
    const stats = dashscopeQueryStats(t.h.sim.ctx).get('main')!;
    expect(stats.throttled).toBe(0);
    expect(stats.peakPerSecond).toBeLessThanOrEqual(20);
    expect(stats.lists).toBeGreaterThan(0);
    // One query for each finished task, the lists, and a few client reads of the newest tasks before a round saw them.
    expect(stats.single).toBeLessThan(VIDEOS * 1.5);
    await flushWriters(t.h);
    const charges = await t.h.store.db
      .selectFrom('ledger')
      .select(['task_id'])
      .where('token_id', '=', tok.id)
      .where('task_id', 'is not', null)
      .execute();
    expect(charges).toHaveLength(VIDEOS);
    expect(new Set(charges.map((c) => c.task_id)).size).toBe(VIDEOS);
    // For the record: from the upstream's completion to the client's first read of it (the clients read every 2 s).
    const rows = await t.h.store.db
      .selectFrom('tasks')
      .select(['id', 'upstream_task_id'])
      .where('token_id', '=', tok.id)
      .execute();
    const sim = dashscopeTaskStore(t.h.sim.ctx);
    const lags = rows.map((r) => seen.get(r.id)! - sim.get(r.upstream_task_id!)!.finishAt).sort((a, b) => a - b);
    console.log(
      `query rate run: ${stats.queries} queries (${stats.single} single, ${stats.lists} lists) for ${VIDEOS} tasks; completion seen after median ${lags[lags.length >> 1]} ms, worst ${lags[lags.length - 1]} ms`,
    );
  }, 180_000);
});

describe('an account that throttles anyway (another tool spends its budget)', () => {
  const t = useHarness({
    sim: { taskDurationMs: 300, dashscopeQueryQps: 2 },
    env: {
      TOLLWAY_TASK_TICK_MS: '100',
      TOLLWAY_TASK_POLL_BASE_MS: '100',
      TOLLWAY_TASK_POLL_MAX_MS: '400',
      TOLLWAY_TASK_REFRESH_STALE_MS: '0',
      TOLLWAY_DASHSCOPE_QUERY_QPS: '12',
    },
  });

  it('429 Throttling answers are a back-off: every task completes, none fails, each charged once', async () => {
    const tok = await t.h.token({ name: 'throttled' });
    const ids = await Promise.all(
      Array.from(
        { length: 6 },
        async () =>
          (await createVideo(t.h, tok.secret, { model: 'wnx2.7-t2v', prompt: 'a dog', seconds: 2, resolution: '720p' }))
            .json.id as string,
      ),
    );
    for (const id of ids) {
      for (let n = 0; n < 400; n++) {
        const v = await getVideo(t.h, tok.secret, id);
        expect(v.status).toBe(200);
        expect(v.json.status).not.toBe('failed');
        if (v.json.status === 'completed') break;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    expect(dashscopeQueryStats(t.h.sim.ctx).get('main')!.throttled).toBeGreaterThan(0);
    const rows = await t.h.store.db.selectFrom('tasks').select(['state']).where('token_id', '=', tok.id).execute();
    expect(rows.map((r) => r.state)).toEqual(Array(6).fill('succeeded'));
    await flushWriters(t.h);
    expect(
      await t.h.store.db
        .selectFrom('ledger')
        .select(['task_id'])
        .where('token_id', '=', tok.id)
        .where('task_id', 'is not', null)
        .execute(),
    ).toHaveLength(6);
  }, 240_000);
});
