// Tasks survive a gateway restart: graceful (leases dropped at stop) and a crash (leases left behind
// expire), and the task still completes and is charged exactly once, through the HTTP API.
import { describe, expect, it } from 'vitest';
import { useHarness, type Harness } from '../support/harness.ts';
import { ledgerOfTask, tokenRow } from '../support/store-rows.ts';
import { createVideo, FAST_TASK_ENV, waitTerminal } from '../support/videos.ts';

/** Replace the harness gateway by a new one on the same store and simulator (as a restarted process). */
async function restart(h: Harness, crash: boolean): Promise<void> {
  if (crash) {
    // kill -9: the poller dies mid-lease and nothing is cleaned up. Simulated by leaving a live lease
    // of a vanished instance on every open task, then dropping the old gateway without its engine stop.
    await h.store.db
      .updateTable('tasks')
      .set({ lease_owner: 'inst_killed', lease_until: Date.now() + 300 })
      .where('state', 'in', ['queued', 'in_progress'])
      .execute();
    h.gw.deps.tasks.stop = async () => undefined;
  }
  await h.restart();
}

describe('restart mid-task', () => {
  const t = useHarness({
    perTest: true,
    env: { ...FAST_TASK_ENV, TOLLWAY_TASK_LEASE_MS: '1000' },
    sim: { taskDurationMs: 400 },
  });

  for (const crash of [false, true]) {
    it(`${crash ? 'crash' : 'graceful stop'}: the task completes on the new gateway and is charged once`, async () => {
      const h = t.h;
      const c = await createVideo(h, t.token, {
        model: 'wnx2.7-t2v',
        prompt: 'survive',
        seconds: 3,
        resolution: '720p',
      });
      expect(c.status).toBe(200);
      const id = c.json.id as string;
      await restart(h, crash); // from here on h reaches the new gateway
      // Poller-only progress first (no GET): the new instance's background poller finishes it.
      let state: string | undefined;
      for (let i = 0; i < 200 && state !== 'succeeded'; i++) {
        await new Promise((r) => setTimeout(r, 25));
        state = (await h.store.db.selectFrom('tasks').select('state').where('id', '=', id).executeTakeFirst())?.state;
      }
      expect(state).toBe('succeeded');
      const v = await waitTerminal(h, t.token, id);
      expect(v.status).toBe('completed');
      const rows = await ledgerOfTask(h, id);
      expect(rows).toHaveLength(1);
      expect(Number(rows[0]!.amount)).toBe(3 * 600_000);
      expect(await tokenRow(h, t.tokenId)).toMatchObject({ spent: 3 * 600_000, held: 0 });
    });
  }
});
