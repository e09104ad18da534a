// A channel disabled (or deleted, which disables it) while its tasks run, a replacement added on the same account:
// the tasks already created on it are still followed to their end with its keys, completed and charged once.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_KEYS } from '../../simulator/index.ts';
import { dashscopeTaskStore, statusOf } from '../../simulator/dashscope/tasks.ts';
import { ensureChannel } from '../../src/core/admin/channels.ts';
import { useHarness } from '../support/harness.ts';
import { flushWriters } from '../support/store-rows.ts';
import { FAST_TASK_ENV, getVideo } from '../support/videos.ts';

const t = useHarness({ sim: { taskDurationMs: 300 }, env: { ...FAST_TASK_ENV, TOLLWAY_TASK_MAX_AGE_MS: '4000' } });

describe('a channel disabled while its tasks run', () => {
  it('the finished upstream task still completes (and is charged once) for the client', async () => {
    const r = await t.h.fetch('/v1/videos', {
      method: 'POST',
      token: t.token,
      json: { model: 'wnx2.7-t2v', prompt: 'a cat', seconds: 2, resolution: '720p' },
    });
    expect(r.status).toBe(200);
    const v = (await r.json()) as { id: string };
    // The operator retires the channel (DELETE = disable) and adds a replacement on the same account.
    const channels = (await (await t.h.admin('/admin/channels')).json()) as {
      data: Array<{ id: string; name: string }>;
    };
    const old = channels.data.find((c) => c.name === 'sim-dashscope')!;
    expect((await t.h.admin(`/admin/channels/${old.id}`, { method: 'DELETE' })).status).toBeLessThan(300);
    await ensureChannel(t.h.gw.deps, 'sim-dashscope-2', 'dashscope', t.h.sim.url, {
      apiKey: DEFAULT_SIM_KEYS.dashscopeApiKey,
    });

    // Wait past the upstream's finish and past the maximum task age.
    let last: { status: string; error: unknown } = { status: '', error: null };
    for (let i = 0; i < 120; i++) {
      last = (await getVideo(t.h, t.token, v.id)).json;
      if (['completed', 'failed', 'cancelled'].includes(last.status)) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    const upstream = [...dashscopeTaskStore(t.h.sim.ctx).values()].map((x) => statusOf(x));
    await flushWriters(t.h);
    const ledger = await t.h.store.db.selectFrom('ledger').selectAll().where('task_id', '=', v.id).execute();
    expect(upstream).toEqual(['SUCCEEDED']);
    expect(last.status).toBe('completed');
    expect(ledger).toHaveLength(1);
  });
});
