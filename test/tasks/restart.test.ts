// Tasks survive a gateway restart: graceful (leases dropped at stop) and a crash (leases left behind
// expire), and the task still completes and is charged exactly once, through the HTTP API.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway.ts';
import { ADMIN_KEY, type Harness, SECRET, startHarness } from '../support/harness.ts';
import { ledgerOfTask, tokenRow } from '../support/store-rows.ts';
import { createVideo, FAST_TASK_ENV, waitTerminal } from '../support/videos.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Replace the harness gateway by a new one on the same store and simulator (as a restarted process). */
async function restart(hh: Harness, crash: boolean): Promise<Harness> {
  if (crash) {
    // kill -9: the poller dies mid-lease and nothing is cleaned up. Simulated by leaving a live lease
    // of a vanished instance on every open task, then dropping the old gateway without its engine stop.
    await hh.store.db.updateTable('tasks').set({ lease_owner: 'inst_killed', lease_until: Date.now() + 300 }).where('state', 'in', ['queued', 'in_progress']).execute();
    hh.gw.deps.tasks.stop = async () => undefined;
  }
  await hh.gw.close();
  const logs = new Writable({ write: (c: Buffer, _e, cb) => (hh.logs.push(c.toString()), cb()) });
  const gw = await createGateway(hh.config, { adminKey: ADMIN_KEY, secret: SECRET, logStream: logs, store: hh.store });
  const address = await gw.app.listen({ port: 0, host: '127.0.0.1' });
  hh.gw = gw; // the harness closes the new gateway at the end
  const url = address.replace('[::1]', '127.0.0.1');
  const fetchNew: Harness['fetch'] = (path, init = {}) => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set('authorization', `Bearer ${init.token}`);
    return fetch(url + path, { ...init, headers });
  };
  return { ...hh, url, fetch: fetchNew };
}

describe('restart mid-task', () => {
  for (const crash of [false, true]) {
    it(`${crash ? 'crash' : 'graceful stop'}: the task completes on the new gateway and is charged once`, async () => {
      h = await startHarness({ env: { ...FAST_TASK_ENV, TOLLWAY_TASK_LEASE_MS: '1000' }, sim: { taskDurationMs: 400 } });
      const t = await h.token();
      const c = await createVideo(h, t.secret, { model: 'wnx2.7-t2v', prompt: 'survive', seconds: 3, resolution: '720p' });
      expect(c.status).toBe(200);
      const id = c.json.id as string;
      const h2 = await restart(h, crash);
      // Poller-only progress first (no GET): the new instance's background poller finishes it.
      let state: string | undefined;
      for (let i = 0; i < 200 && state !== 'succeeded'; i++) {
        await new Promise((r) => setTimeout(r, 25));
        state = (await h.store.db.selectFrom('tasks').select('state').where('id', '=', id).executeTakeFirst())?.state;
      }
      expect(state).toBe('succeeded');
      const v = await waitTerminal(h2, t.secret, id);
      expect(v.status).toBe('completed');
      const rows = await ledgerOfTask(h, id);
      expect(rows).toHaveLength(1);
      expect(Number(rows[0]!.amount)).toBe(3 * 600_000);
      expect(await tokenRow(h, t.id)).toMatchObject({ spent: 3 * 600_000, held: 0 });
    });
  }
});
