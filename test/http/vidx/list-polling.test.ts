// Many due Kling tasks of one account are polled with the documented list query (GET
// /v1/videos/<kind>?pageNum&pageSize),
// as the simulator records; a task the list does not show is asked about alone; successes are charged once.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { ledgerOfTask } from '../../support/store-rows.ts';
import { call, type TaskData, vidxHarness } from '../../support/vidx.ts';

const t = useHarness(
  vidxHarness({ env: { TOLLWAY_TASK_POLLER: '0' }, sim: { taskDurationMs: 4000, klingTaskSlots: 6 } }),
);
const T2V = '/vidx/v1/videos/text2video';

describe('Kling tasks polled by list', () => {
  it('one list query answers a group of due tasks; each success is settled once', async () => {
    const { secret } = await t.h.token({ quota: 1_000_000_000 });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push((await call<TaskData>(t.h, secret, 'POST', T2V, { prompt: `batch ${i}` })).body.data.task_id);
    const gets = () => t.h.sim.requestsTo('/v1/videos/text2video').filter((r) => r.method === 'GET');
    const before = gets().length;
    const due = () => t.h.store.db.updateTable('tasks').set({ next_poll_at: 0 }).where('id', 'in', ids).execute();
    await due();
    expect(await t.h.gw.deps.tasks.tick()).toBe(6);
    const first = gets().slice(before);
    expect(first.map((r) => r.path)).toEqual(['/v1/videos/text2video?pageNum=1&pageSize=500']);

    // Once all have finished upstream, one more list round settles all six.
    await new Promise((r) => setTimeout(r, 4100));
    await due();
    expect(await t.h.gw.deps.tasks.tick()).toBe(6);
    expect(
      gets()
        .slice(before + 1)
        .map((r) => r.path),
    ).toEqual(['/v1/videos/text2video?pageNum=1&pageSize=500']);
    for (const id of ids) {
      const row = await t.h.store.db
        .selectFrom('tasks')
        .select(['state'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row.state).toBe('succeeded');
      expect(await ledgerOfTask(t.h, id)).toHaveLength(1);
    }
  });

  it('a task missing from the list is queried by its id', async () => {
    const { secret } = await t.h.token({ quota: 1_000_000_000 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push(
        (await call<TaskData>(t.h, secret, 'POST', T2V, { prompt: i === 0 ? 'gone sim-fault:vanish' : `kept ${i}` }))
          .body.data.task_id,
      );
    await new Promise((r) => setTimeout(r, 900)); // past the vanished task's scheduled time
    const gets = () => t.h.sim.requestsTo('/v1/videos/text2video').filter((r) => r.method === 'GET');
    const before = gets().length;
    await t.h.store.db.updateTable('tasks').set({ next_poll_at: 0 }).where('id', 'in', ids).execute();
    await t.h.gw.deps.tasks.tick();
    const paths = gets()
      .slice(before)
      .map((r) => r.path);
    const up = await t.h.store.db
      .selectFrom('tasks')
      .select(['upstream_task_id', 'state'])
      .where('id', '=', ids[0]!)
      .executeTakeFirstOrThrow();
    expect(paths).toContain(`/v1/videos/text2video/${up.upstream_task_id}`);
    expect(paths.filter((p) => p.includes('?pageNum=')).length).toBeGreaterThanOrEqual(1);
    expect(paths.filter((p) => !p.includes('?pageNum='))).toHaveLength(1);
    expect(up.state).toBe('failed');
  });
});
