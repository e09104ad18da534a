// The task engine at scale, over a real store (SQLite, or PostgreSQL with TOLLWAY_TEST_DIALECT=postgres): claims
// read the due head of the open-task index in order and schedule the next poll themselves, a poll that finds
// nothing changed writes nothing, instances claim disjoint sets, leases are sticky (taken over only when they ran
// out or were handed back), batch-capable drivers are asked once per group, and an upstream notice polls at once.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Channel } from '../../src/routing/channel-registry.ts';
import type { PollOutcome, TaskRecord } from '../../src/tasks/types.ts';
import { engineFixture, ScriptedDriver, type EngineFixture } from '../support/task-engine.ts';

let f: EngineFixture;
beforeEach(async () => {
  f = await engineFixture();
});
afterEach(async () => f?.cleanup());

const row = (id: string) => f.store.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const setDue = (id: string, at: number) =>
  f.store.db.updateTable('tasks').set({ next_poll_at: at }).where('id', '=', id).execute();
const ledger = (taskId: string) => f.store.db.selectFrom('ledger').selectAll().where('task_id', '=', taskId).execute();

/** A scripted driver that also answers many tasks in one call (as a list endpoint would), leaving some out. */
class ListingDriver extends ScriptedDriver {
  listCalls: number[] = [];
  unlisted = new Set<string>();
  async pollMany(tasks: readonly TaskRecord[], channel: Channel): Promise<Map<string, PollOutcome>> {
    this.listCalls.push(tasks.length);
    const out = new Map<string, PollOutcome>();
    for (const t of tasks) {
      if (this.unlisted.has(t.upstreamTaskId!)) continue;
      out.set(
        t.upstreamTaskId!,
        this.outcomes.get(t.upstreamTaskId!) ?? { state: 'in_progress', upstreamStatus: 'RUNNING', progress: 50 },
      );
    }
    void channel;
    return out;
  }
}

describe('task engine at scale', () => {
  it('claims the due head in next-poll order, leaves tasks not yet due, and schedules the next poll by back-off in the claim', async () => {
    const e = f.engine({ batchSize: 2, pollBaseMs: 1000, pollMaxMs: 60_000 });
    const tasks = [];
    for (let i = 0; i < 4; i++) tasks.push(await e.create(f.input(e)));
    const now = Date.now();
    await setDue(tasks[0]!.id, now - 1000);
    await setDue(tasks[1]!.id, now - 3000);
    await setDue(tasks[2]!.id, now - 2000);
    await setDue(tasks[3]!.id, now + 60_000);
    const before = Date.now();
    expect(await e.tick()).toBe(2);
    // The two that were due longest, not the third due one, nor the one not yet due.
    expect(f.driver.polls).toBe(2);
    const [r0, r1, r2, r3] = await Promise.all(tasks.map((t) => row(t.id)));
    expect([r1!.poll_attempts, r2!.poll_attempts, r0!.poll_attempts, r3!.poll_attempts].map(Number)).toEqual([
      1, 1, 0, 0,
    ]);
    // First attempt: base × 2 (± 10 %), set by the claim; the check time is recorded, and the lease stays with this
    // instance after the round (sticky), past the next poll by the lease time.
    for (const r of [r1!, r2!]) {
      expect(Number(r.next_poll_at) - before).toBeGreaterThanOrEqual(1800);
      expect(Number(r.next_poll_at) - before).toBeLessThanOrEqual(2200 + (Date.now() - before));
      expect(Number(r.checked_at)).toBeGreaterThanOrEqual(before);
      expect(r.lease_owner).toBe(e.owner);
      expect(Number(r.lease_until) - Number(r.next_poll_at)).toBeGreaterThanOrEqual(e.options.leaseMs);
    }
    expect(r0!.checked_at).toBeNull();
    // The next round takes the remaining due one only.
    expect(await e.tick()).toBe(1);
    expect(Number((await row(tasks[0]!.id)).poll_attempts)).toBe(1);
    expect(await e.tick()).toBe(0);
  });

  it("schedules a task at its longest back-off 1 to 10 % early, never later: the round's own time stays within the back-off", async () => {
    const e = f.engine({ batchSize: 200, pollBaseMs: 1000, pollMaxMs: 10_000 });
    const tasks = [];
    for (let i = 0; i < 120; i++) tasks.push(await e.create(f.input(e)));
    // Past the ramp: every task is at the longest back-off.
    await f.store.db.updateTable('tasks').set({ poll_attempts: 10, next_poll_at: 0 }).execute();
    const claimedAt = Date.now();
    expect(await e.tick()).toBe(120);
    const delays = (await Promise.all(tasks.map((t) => row(t.id)))).map((r) => Number(r.next_poll_at) - claimedAt);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(9000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(9900 + (Date.now() - claimedAt));
    // Jitter, not one fixed step: the schedule spreads over the range.
    expect(Math.max(...delays) - Math.min(...delays)).toBeGreaterThan(300);
  });

  it('a poll that finds nothing changed writes nothing; a change is one compare-and-set write', async () => {
    const e = f.engine();
    const t = await e.create(f.input(e));
    const transition = vi.spyOn(e.repo, 'transition');
    f.driver.outcomes.set(t.upstreamTaskId!, {
      state: 'queued',
      upstreamStatus: 'PENDING',
      upstreamRequestId: 'rid-poll-1',
    });
    await f.store.db
      .updateTable('tasks')
      .set({ upstream_status: 'PENDING', progress: null })
      .where('id', '=', t.id)
      .execute();
    const base = await row(t.id);
    for (let i = 0; i < 3; i++) {
      await setDue(t.id, 0);
      expect(await e.tick()).toBe(1);
    }
    expect(f.driver.polls).toBe(3);
    expect(transition).not.toHaveBeenCalled();
    const after = await row(t.id);
    // Only the claim's own columns moved.
    const { next_poll_at: _n, poll_attempts: _p, checked_at: _c, lease_owner: _o, lease_until: _u, ...rest } = after;
    const {
      next_poll_at: _n0,
      poll_attempts: _p0,
      checked_at: _c0,
      lease_owner: _o0,
      lease_until: _u0,
      ...rest0
    } = base;
    expect(rest).toEqual(rest0);
    expect(Number(after.poll_attempts)).toBe(3);

    f.driver.outcomes.set(t.upstreamTaskId!, {
      state: 'in_progress',
      upstreamStatus: 'RUNNING',
      progress: 50,
      upstreamRequestId: 'rid-poll-2',
    });
    await setDue(t.id, 0);
    await e.tick();
    expect(transition).toHaveBeenCalledTimes(1);
    const moved = await row(t.id);
    expect(moved).toMatchObject({
      state: 'in_progress',
      upstream_status: 'RUNNING',
      progress: 50,
      upstream_request_id: 'rid-poll-2',
    });
    expect(Number(moved.updated_at)).toBeGreaterThan(0);
  });

  it('two instances polling at once claim disjoint sets (SKIP LOCKED on PostgreSQL) and cover every due task once', async () => {
    const slow = { batchSize: 25, pollBaseMs: 60_000, pollMaxMs: 600_000 };
    const a = f.engine(slow);
    const b = f.engine(slow);
    f.driver.delayMs = 5;
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await a.create(f.input(a))).id);
    await f.store.db.updateTable('tasks').set({ next_poll_at: 0 }).execute();
    const claims: string[][] = [[], []];
    for (const [i, e] of [a, b].entries()) {
      const claim = e.repo.claimDue.bind(e.repo);
      vi.spyOn(e.repo, 'claimDue').mockImplementation(async (...args) => {
        const got = await claim(...args);
        claims[i]!.push(...got.map((t) => t.id));
        return got;
      });
    }
    const counts = await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
    expect(counts.reduce((x, y) => x + y, 0)).toBe(40);
    const all = [...claims[0]!, ...claims[1]!];
    expect(new Set(all).size).toBe(40);
    expect(all.sort()).toEqual([...ids].sort());
    expect(f.driver.polls).toBe(40);
  });

  it('a driver that can list is asked once per group of due tasks; tasks it does not list are polled alone; a success is charged once', async () => {
    const driver = new ListingDriver();
    const e = f.engine({ pollBaseMs: 60_000, pollMaxMs: 600_000 });
    e.registerDriver('test-video', driver);
    const tasks = [];
    for (let i = 0; i < 6; i++) tasks.push(await e.create(f.input(e)));
    driver.unlisted.add(tasks[5]!.upstreamTaskId!);
    driver.outcomes.set(tasks[0]!.upstreamTaskId!, {
      state: 'succeeded',
      upstreamStatus: 'SUCCEEDED',
      reported: { outputSeconds: 3, resolution: 720 },
    });
    await f.store.db.updateTable('tasks').set({ next_poll_at: 0 }).execute();
    expect(await e.tick()).toBe(6);
    expect(driver.listCalls).toEqual([6]);
    expect(driver.polls).toBe(1); // the unlisted one
    expect((await row(tasks[0]!.id)).state).toBe('succeeded');
    expect((await row(tasks[1]!.id)).state).toBe('in_progress');
    expect(await ledger(tasks[0]!.id)).toHaveLength(1);
    // Fewer than the batch minimum: asked one by one.
    await f.store.db
      .updateTable('tasks')
      .set({ next_poll_at: 0 })
      .where('id', 'in', [tasks[1]!.id, tasks[2]!.id])
      .execute();
    expect(await e.tick()).toBe(2);
    expect(driver.listCalls).toEqual([6]);
    expect(driver.polls).toBe(3);
    expect(await ledger(tasks[0]!.id)).toHaveLength(1);
  });

  it('leases are sticky: a round hands nothing back, its owner claims the task again when due, another instance only once the lease ran out', async () => {
    const o = { pollBaseMs: 1000, pollMaxMs: 4000, leaseMs: 5000 };
    const a = f.engine(o);
    const b = f.engine(o);
    const t = await a.create(f.input(a));
    await setDue(t.id, 0);
    const unlease = vi.spyOn(a.repo, 'unleaseMany');
    expect(await a.tick()).toBe(1);
    expect(unlease).not.toHaveBeenCalled();
    const held = await row(t.id);
    expect(held.lease_owner).toBe(a.owner);
    // Due again: B may not take it while A's lease runs; A does, renewing its lease.
    await setDue(t.id, 0);
    expect(await b.tick()).toBe(0);
    expect(await a.tick()).toBe(1);
    expect(f.driver.polls).toBe(2);
    const renewed = await row(t.id);
    expect(renewed.lease_owner).toBe(a.owner);
    expect(Number(renewed.lease_until)).toBeGreaterThanOrEqual(Number(held.lease_until));
    // A missed the poll by its lease time (a crash): B takes the task over, and from then on it is B's.
    await f.store.db
      .updateTable('tasks')
      .set({ next_poll_at: 0, lease_until: Date.now() - 1 })
      .where('id', '=', t.id)
      .execute();
    expect(await b.tick()).toBe(1);
    expect((await row(t.id)).lease_owner).toBe(b.owner);
    await setDue(t.id, 0);
    expect(await a.tick()).toBe(0);
    expect(f.driver.polls).toBe(3);
    // A graceful stop hands the open tasks back: A takes it over at once.
    await b.stop();
    expect((await row(t.id)).lease_owner).toBeNull();
    expect(await a.tick()).toBe(1);
    expect((await row(t.id)).lease_owner).toBe(a.owner);
  });

  it('a task still being submitted is leased for the round only (the round hands it back), and never polled on demand', async () => {
    const e = f.engine({ leaseMs: 5000 });
    const t = await e.create(f.input(e));
    // Left `submitting` past its deadline (a lost submit): the round looks for it upstream (not there yet: it stays
    // submitting, to be looked for again), then drops its lease, which tells a submit in flight apart.
    await f.store.db
      .updateTable('tasks')
      .set({ state: 'submitting', upstream_task_id: null, next_poll_at: 0, lease_owner: null, lease_until: null })
      .where('id', '=', t.id)
      .execute();
    const lookup = vi.fn(async () => null);
    Object.assign(f.driver, { recoverSubmit: lookup });
    // An on-demand poll, which takes no lease, leaves it to the lease holder: nothing is looked up, nothing written.
    expect((await e.pollNow((await e.repo.get(t.id))!)).state).toBe('submitting');
    expect(lookup).not.toHaveBeenCalled();
    expect((await row(t.id)).checked_at).toBeNull();
    const unlease = vi.spyOn(e.repo, 'unleaseMany');
    expect(await e.tick()).toBe(1);
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(unlease).toHaveBeenCalledWith([t.id], e.owner);
    expect(await row(t.id)).toMatchObject({ state: 'submitting', lease_owner: null });
  });

  it("an upstream notice polls the task at once, even while another instance's poller holds it, and makes it due for that poller too", async () => {
    const e = f.engine();
    const t = await e.create(f.input(e));
    await setDue(t.id, Date.now() + 600_000);
    await f.store.db
      .updateTable('tasks')
      .set({ lease_owner: 'inst_other', lease_until: Date.now() + 600_000 })
      .where('id', '=', t.id)
      .execute();
    f.driver.outcomes.set(t.upstreamTaskId!, { state: 'in_progress', upstreamStatus: 'RUNNING', progress: 40 });
    const before = Date.now();
    const seen = await e.upstreamNotified((await e.repo.get(t.id))!);
    expect(seen).toMatchObject({ state: 'in_progress', progress: 40 });
    expect(f.driver.polls).toBe(1);
    const r = await row(t.id);
    // Due now for its poller, the check recorded; the other instance's lease is left as it was.
    expect(Number(r.next_poll_at)).toBeLessThanOrEqual(Date.now());
    expect(Number(r.checked_at)).toBeGreaterThanOrEqual(before);
    expect(r.lease_owner).toBe('inst_other');
    // Finished: the notice settles it once, however many notices and polls follow.
    f.driver.outcomes.set(t.upstreamTaskId!, {
      state: 'succeeded',
      upstreamStatus: 'SUCCEEDED',
      reported: { outputSeconds: 2, resolution: 720 },
    });
    await Promise.all([
      e.upstreamNotified((await e.repo.get(t.id))!),
      f.engine().upstreamNotified((await e.repo.get(t.id))!),
    ]);
    expect((await row(t.id)).state).toBe('succeeded');
    expect(await ledger(t.id)).toHaveLength(1);
    expect(await e.upstreamNotified((await e.repo.get(t.id))!)).toMatchObject({ state: 'succeeded' });
    const u = await e.create(f.input(e));
    f.driver.outcomes.set(u.upstreamTaskId!, {
      state: 'failed',
      upstreamStatus: 'FAILED',
      error: { code: 'x', message: 'y' },
    });
    expect((await e.upstreamNotified(u)).state).toBe('failed');
    expect((await f.tokenRow()).held).toBe(0);
  });
});
