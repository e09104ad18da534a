// The poller on its own thread (TOLLWAY_TASK_POLLER_THREAD, the default): open tasks finish and are charged once
// while the request thread claims and polls nothing; a price changed through this process's admin API reaches the
// thread before it charges; the thread's log lines reach the gateway's log; a thread that dies is started again and
// goes on with the tasks it held (one lease owner for every start);
// closing the gateway stops it and drops its leases.
import { getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { PollerThread } from '../../src/tasks/poller-thread.ts';
import { useHarness } from '../support/harness.ts';
import { dashscopeTaskStore } from '../../simulator/dashscope/tasks.ts';
import { ledgerOfTask } from '../support/store-rows.ts';
import { createVideo, FAST_TASK_ENV } from '../support/videos.ts';

// No refresh on a client's GET (this test never GETs the tasks anyway): only a poller can move them.
const t = useHarness({
  env: { ...FAST_TASK_ENV, TOLLWAY_TASK_REFRESH_STALE_MS: '600000' },
  sim: { taskDurationMs: 600 },
});

async function until<T>(what: string, fn: () => Promise<T | null | false>, ms: number): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 25))) {
    const v = await fn();
    if (v) return v;
  }
  throw new Error(`never happened: ${what}`);
}

const row = (id: string) =>
  t.h.store.db.selectFrom('tasks').select(['state', 'lease_owner']).where('id', '=', id).executeTakeFirstOrThrow();
const finished = (id: string) =>
  until(
    `task ${id} terminal`,
    async () => ((r) => (['succeeded', 'failed'].includes(r.state) ? r : null))(await row(id)),
    60_000,
  );

/** Count the request thread's own poller rounds: with the thread polling, there are none. */
function countMainClaims(): { readonly n: number } {
  const repo = t.h.gw.deps.tasks.repo;
  const claimDue = repo.claimDue.bind(repo);
  const c = { n: 0 };
  repo.claimDue = (...a: Parameters<typeof claimDue>) => {
    c.n++;
    return claimDue(...a);
  };
  return c;
}

describe('the task poller thread', () => {
  it('is the default: tasks finish and are charged once with no poller round on the request thread', async () => {
    expect(t.h.gw.poller).toBeInstanceOf(PollerThread);
    const claims = countMainClaims();
    const { secret } = await t.h.token({ name: 'thread' });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const c = await createVideo(t.h, secret, { model: 'wnx2.7-t2v', prompt: `thread ${i}`, seconds: 2 });
      expect(c.status).toBe(200);
      ids.push(String(c.json.id));
    }
    for (const id of ids) {
      expect((await finished(id)).state).toBe('succeeded');
      expect((await ledgerOfTask(t.h, id)).map((r) => r.idempotency_key)).toEqual([`${id}:success`]);
    }
    expect(claims.n).toBe(0);
  });

  it.runIf(process.platform === 'linux')(
    'runs at a lower scheduling priority than the request thread (TOLLWAY_TASK_POLLER_NICE)',
    () => {
      const tid = (t.h.gw.poller as PollerThread).tid;
      expect(tid).not.toBe(process.pid);
      expect(getPriority(tid!)).toBe(t.h.config.tasks.pollerNice);
      expect(t.h.config.tasks.pollerNice).toBe(10);
    },
  );

  it('charges at a price changed through this process while the thread runs (the change reached the thread)', async () => {
    const { secret } = await t.h.token({ name: 'price' });
    // The thread read the catalogue when it started; only the forwarded change can tell it the new price.
    const put = await t.h.admin('/admin/prices/wnx2.7-t2v', {
      method: 'PUT',
      json: { unit: 'video-second', perSecond: { '720p': 7_000_000, '1080p': 9_000_000 }, basis: 'output' },
    });
    expect(put.status).toBe(200);
    const c = await createVideo(t.h, secret, {
      model: 'wnx2.7-t2v',
      prompt: 'priced later',
      seconds: 2,
      size: '1280x720',
    });
    expect(c.status).toBe(200);
    const id = String(c.json.id);
    expect((await finished(id)).state).toBe('succeeded');
    const [line] = await ledgerOfTask(t.h, id);
    const q = JSON.parse(String(line!.quantities)) as Record<string, unknown>;
    expect(q.tier).toBe('720p');
    expect(Number(line!.amount)).toBe(Math.round(Number(q.billed_seconds) * 7_000_000));
    await t.h.admin('/admin/prices/wnx2.7-t2v', { method: 'DELETE' });
  });

  it("writes the thread's log lines to the gateway's log", async () => {
    const { secret } = await t.h.token({ name: 'logs' });
    // The upstream forgets the task: it fails uncharged with a warn line for the operator, written by the thread.
    const c = await createVideo(t.h, secret, { model: 'wnx2.7-t2v', prompt: 'a storm sim-fault:vanish', seconds: 2 });
    expect(c.status).toBe(200);
    const id = String(c.json.id);
    expect((await finished(id)).state).toBe('failed');
    expect(await ledgerOfTask(t.h, id)).toEqual([]);
    const line = await until(
      'the thread logged the failure',
      async () => t.h.logs.find((l) => l.includes(id) && l.includes('hold released')),
      30_000,
    );
    expect(JSON.parse(line!)).toMatchObject({ level: 40, task_id: id });
  });

  it('starts a thread that died again, which goes on at once with the tasks its predecessor held', async () => {
    const poller = t.h.gw.poller as PollerThread;
    const { secret } = await t.h.token({ name: 'crash' });
    const held = String(
      (await createVideo(t.h, secret, { model: 'wnx2.7-t2v', prompt: 'held at the crash', seconds: 2 })).json.id,
    );
    // Kept running upstream until the thread has died, so that its lease (90 s by default) is still the dead thread's.
    const upstream = [...dashscopeTaskStore(t.h.sim.ctx).values()].at(-1)!;
    upstream.finishAt = Date.now() + 600_000;
    const owner = await until('the thread holds the task', async () => (await row(held)).lease_owner, 30_000);
    await poller.kill();
    expect((await row(held)).state).not.toBe('succeeded');
    upstream.finishAt = Date.now();
    const c = await createVideo(t.h, secret, { model: 'wnx2.7-t2v', prompt: 'after a crash', seconds: 2 });
    const id = String(c.json.id);
    expect((await finished(id)).state).toBe('succeeded');
    // The lease had not run out: the restarted thread polls as the same owner, so it did not wait for it.
    const after = await finished(held);
    expect(after).toEqual({ state: 'succeeded', lease_owner: owner });
    expect(t.h.logs.some((l) => l.includes('task poller thread exited; restarting it'))).toBe(true);
  });

  it('stops with its leases dropped, so another instance continues at once; the gateway restarts it', async () => {
    const { secret } = await t.h.token({ name: 'close' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        String((await createVideo(t.h, secret, { model: 'wnx2.7-t2v', prompt: `left open ${i}`, seconds: 2 })).json.id),
      );
    await t.h.gw.poller!.stop();
    const open = await t.h.store.db
      .selectFrom('tasks')
      .select(['id', 'lease_owner'])
      .where('state', 'in', ['queued', 'in_progress'])
      .execute();
    expect(open.filter((r) => r.lease_owner !== null)).toEqual([]);
    await t.h.restart();
    for (const id of ids) expect((await finished(id)).state).toBe('succeeded');
  });
});
