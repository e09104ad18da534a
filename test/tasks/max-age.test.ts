// The maximum task age is weighed after the upstream was asked: a task that finished upstream within the age is
// completed and charged when its poll comes late (its poller instance was down), (a task still running past the age
// times out: engine.test.ts).
import { describe, expect, it } from 'vitest';
import { dashscopeTaskStore, statusOf } from '../../simulator/dashscope/tasks.ts';
import { useHarness } from '../support/harness.ts';
import { flushWriters } from '../support/store-rows.ts';
import { FAST_TASK_ENV, getVideo } from '../support/videos.ts';

// API-only instance (no poller) that does not refresh on GET: the poller-role instance is "down".
const t = useHarness({
  sim: { taskDurationMs: 200 },
  env: {
    ...FAST_TASK_ENV,
    TOLLWAY_TASK_POLLER: 'false',
    TOLLWAY_TASK_REFRESH_STALE_MS: '600000',
    TOLLWAY_TASK_MAX_AGE_MS: '3000',
  },
});

describe('maximum task age', () => {
  it('a task that finished upstream within the age is completed and charged, not timed out, when the poller comes back late', async () => {
    const r = await t.h.fetch('/v1/videos', {
      method: 'POST',
      token: t.token,
      json: { model: 'wnx2.7-t2v', prompt: 'a cat', seconds: 2, resolution: '720p' },
    });
    expect(r.status).toBe(200);
    const v = (await r.json()) as { id: string; created_at: number };
    // The upstream finishes after ~200 ms, i.e. within the 3 s maximum age.
    await new Promise((res) => setTimeout(res, 600));
    expect([...dashscopeTaskStore(t.h.sim.ctx).values()].map((x) => statusOf(x))).toEqual(['SUCCEEDED']);
    // The poller instance is back only after the age has passed.
    await new Promise((res) => setTimeout(res, 2800));
    await t.h.instance({ tasks: { ...t.h.config.tasks, pollerEnabled: true } });
    let last = { status: '', error: null as unknown };
    for (let i = 0; i < 100; i++) {
      last = (await getVideo(t.h, t.token, v.id)).json;
      if (['completed', 'failed'].includes(last.status)) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    await flushWriters(t.h);
    const ledger = await t.h.store.db.selectFrom('ledger').selectAll().where('task_id', '=', v.id).execute();
    expect(last.status).toBe('completed');
    expect(ledger).toHaveLength(1);
  });
});
