// The task engine over a real store (SQLite, or PostgreSQL with TOLLWAY_TEST_DIALECT=postgres) with a
// scripted driver: creation/hold, exactly-once settle under races, release paths, leases, back-off,
// bounded per-channel concurrency, max age and lost submits.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import type { QueryRate } from '../../src/limits/query-rate.ts';
import type { TaskRecord } from '../../src/tasks/types.ts';
import { engineFixture, type EngineFixture } from '../support/task-engine.ts';

let f: EngineFixture;
beforeEach(async () => {
  f = await engineFixture();
});
afterEach(async () => f?.cleanup());

const ledger = (taskId: string) => f.store.db.selectFrom('ledger').selectAll().where('task_id', '=', taskId).execute();
const hold = (taskId: string) =>
  f.store.db.selectFrom('holds').selectAll().where('hold_key', '=', taskId).executeTakeFirst();

describe('task engine', () => {
  it('create: row + hold (no charge), upstream id stored, state queued', async () => {
    const e = f.engine();
    const t = await e.create(f.input(e));
    expect(t.state).toBe('queued');
    expect(t.upstreamTaskId).toMatch(/^up_/);
    expect(t.upstreamRequestId).toBe('rid-create');
    expect(t.holdAmount).toBe(5 * 600_000);
    expect(await ledger(t.id)).toHaveLength(0);
    expect(await f.tokenRow()).toEqual({ spent: 0, held: 5 * 600_000 });
  });

  it('a failing submit releases the hold, deletes the row and rethrows', async () => {
    const e = f.engine();
    const input = f.input(e, {
      submit: async () => {
        throw new GatewayError('upstream_invalid_request', 'nope');
      },
    });
    await expect(e.create(input)).rejects.toThrow('nope');
    expect(await f.store.db.selectFrom('tasks').selectAll().execute()).toHaveLength(0);
    expect(await f.tokenRow()).toEqual({ spent: 0, held: 0 });
  });

  it('success is charged exactly once with concurrent GETs, two engines (instances) and their pollers racing', async () => {
    const a = f.engine();
    const b = f.engine();
    const tasks = await Promise.all(Array.from({ length: 5 }, () => a.create(f.input(a))));
    for (const t of tasks)
      f.driver.outcomes.set(t.upstreamTaskId!, {
        state: 'succeeded',
        upstreamStatus: 'SUCCEEDED',
        result: { url: 'https://r/x.mp4', expiresAt: null },
        reported: { outputSeconds: 4, resolution: 720 },
      });
    await Promise.all([
      ...tasks.flatMap((t) => Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).getFresh(t.id, f.tokenId))),
      a.tick(),
      b.tick(),
      a.tick(),
      b.tick(),
      ...tasks.map((t) => a.pollNow(t)),
      ...tasks.map((t) => b.pollNow(t)),
    ]);
    // Whatever is still open is finished by more rounds.
    for (let i = 0; i < 5; i++) await Promise.all([a.tick(), b.tick()]);
    for (const t of tasks) {
      const rows = await ledger(t.id);
      expect(rows).toHaveLength(1);
      expect(Number(rows[0]!.amount)).toBe(4 * 600_000);
      expect((await a.getFor(t.id, f.tokenId))?.state).toBe('succeeded');
      expect((await hold(t.id))?.state).toBe('settled');
    }
    expect(await f.tokenRow()).toEqual({ spent: 5 * 4 * 600_000, held: 0 });
  });

  it('a success whose move to succeeded fails is not charged either (one transaction); a later failure finds the hold open and charges nothing', async () => {
    const e = f.engine();
    const t = await e.create(f.input(e));
    f.driver.outcomes.set(t.upstreamTaskId!, {
      state: 'succeeded',
      upstreamStatus: 'SUCCEEDED',
      result: { url: 'https://r/x.mp4', expiresAt: null },
      reported: { outputSeconds: 4, resolution: 720 },
    });
    // The state write fails after the charge was written in the same transaction (a crash there, a full disk …).
    const write = vi.spyOn(e.repo, 'transition').mockRejectedValueOnce(new Error('disk I/O error'));
    const after = await e.pollNow(t);
    expect(write).toHaveBeenCalledTimes(1);
    expect(after.state).toBe('queued');
    expect(await ledger(t.id)).toHaveLength(0);
    expect((await hold(t.id))?.state).toBe('held');
    expect(await f.tokenRow()).toEqual({ spent: 0, held: 5 * 600_000 });
    // The upstream then reports the task failed (or forgot it): failed, hold released, never charged.
    f.driver.outcomes.set(t.upstreamTaskId!, {
      state: 'failed',
      upstreamStatus: 'FAILED',
      error: { code: 'upstream_task_failed', message: 'failed' },
    });
    const failed = await e.pollNow(after);
    expect(failed.state).toBe('failed');
    expect(await ledger(t.id)).toHaveLength(0);
    expect(await f.tokenRow()).toEqual({ spent: 0, held: 0 });
  });

  it('success without reported usage charges the held estimate', async () => {
    const e = f.engine();
    const t = await e.create(f.input(e));
    f.driver.outcomes.set(t.upstreamTaskId!, { state: 'succeeded', upstreamStatus: 'SUCCEEDED' });
    await e.pollNow(t);
    expect(Number((await ledger(t.id))[0]!.amount)).toBe(5 * 600_000);
  });

  it('a larger hold than the estimate: held at creation; a success without usage charges the estimate and frees the rest', async () => {
    const e = f.engine();
    const t = await e.create(f.input(e, { hold: { kind: 'video', outputSeconds: 15, tier: '720p' } }));
    expect(t.holdAmount).toBe(15 * 600_000);
    expect(await f.tokenRow()).toEqual({ spent: 0, held: 15 * 600_000 });
    f.driver.outcomes.set(t.upstreamTaskId!, { state: 'succeeded', upstreamStatus: 'SUCCEEDED' });
    await e.pollNow(t);
    expect(Number((await ledger(t.id))[0]!.amount)).toBe(5 * 600_000);
    expect(await f.tokenRow()).toEqual({ spent: 5 * 600_000, held: 0 });
  });

  it('failed / cancelled / unknown release the hold and charge nothing; unknown logs for reconciliation', async () => {
    const e = f.engine();
    const outs = [
      { state: 'failed', upstreamStatus: 'FAILED', error: { code: 'InvalidParameter', message: 'bad' } },
      { state: 'cancelled', upstreamStatus: 'CANCELED' },
      { state: 'unknown', upstreamStatus: 'UNKNOWN' },
    ] as const;
    const tasks: TaskRecord[] = [];
    for (const o of outs) {
      const t = await e.create(f.input(e));
      f.driver.outcomes.set(t.upstreamTaskId!, o);
      tasks.push(t);
    }
    await f.store.db.updateTable('tasks').set({ next_poll_at: 0 }).execute();
    expect(await e.tick()).toBe(3);
    const states = await Promise.all(tasks.map((t) => e.getFor(t.id, f.tokenId)));
    expect(states.map((s) => s?.state)).toEqual(['failed', 'cancelled', 'failed']);
    expect(states[0]?.error).toMatchObject({ code: 'InvalidParameter', message: 'bad' });
    expect(states[2]?.error?.code).toBe('task_unknown');
    for (const t of tasks) {
      expect(await ledger(t.id)).toHaveLength(0);
      expect((await hold(t.id))?.state).toBe('released');
    }
    expect(await f.tokenRow()).toEqual({ spent: 0, held: 0 });
    expect(f.logs.some((l) => l.includes(tasks[2]!.id) && l.includes('reconcile'))).toBe(true);
    expect(f.logs.some((l) => l.includes(tasks[0]!.id) && l.includes('reconcile'))).toBe(false);
  });

  it('a task older than the maximum age ends failed with the hold released and a log line', async () => {
    const e = f.engine({ maxAgeMs: 1 });
    const t = await e.create(f.input(e));
    await f.store.db
      .updateTable('tasks')
      .set({ created_at: Date.now() - 10_000 })
      .where('id', '=', t.id)
      .execute();
    const after = await e.pollNow(t);
    expect(after.state).toBe('failed');
    expect(after.error?.code).toBe('task_timeout');
    // Asked once first: the upstream still had it running.
    expect(f.driver.polls).toBe(1);
    expect((await hold(t.id))?.state).toBe('released');
    expect(f.logs.some((l) => l.includes(t.id) && l.includes('maximum age'))).toBe(true);
  });

  it('a row left `submitting` by a crash is failed and released once its deadline passes', async () => {
    const e = f.engine({ leaseMs: 1000 });
    // A submit that never returns (the process "dies" during it).
    const input = f.input(e, { id: 'task_crashed', submit: () => new Promise(() => undefined) });
    void e.create(input);
    for (let i = 0; i < 50 && !(await hold('task_crashed')); i++) await new Promise((r) => setTimeout(r, 10));
    expect((await hold('task_crashed'))?.state).toBe('held');
    expect(await e.tick()).toBe(0); // lease and deadline still running
    await f.store.db
      .updateTable('tasks')
      .set({ lease_until: Date.now() - 1, next_poll_at: Date.now() - 1 })
      .where('id', '=', 'task_crashed')
      .execute();
    const other = f.engine();
    expect(await other.tick()).toBe(1);
    const t = await other.repo.get('task_crashed');
    expect(t?.state).toBe('failed');
    expect(t?.error?.code).toBe('task_submit_lost');
    expect((await hold('task_crashed'))?.state).toBe('released');
  });

  it('leases: a task leased by another live instance is not polled; an expired lease is taken over', async () => {
    const a = f.engine();
    const b = f.engine();
    const t = await a.create(f.input(a));
    await f.store.db.updateTable('tasks').set({ next_poll_at: 0 }).where('id', '=', t.id).execute();
    await f.store.db
      .updateTable('tasks')
      .set({ lease_owner: 'inst_dead', lease_until: Date.now() + 60_000 })
      .where('id', '=', t.id)
      .execute();
    expect(await b.tick()).toBe(0);
    expect(f.driver.polls).toBe(0);
    await f.store.db
      .updateTable('tasks')
      .set({ lease_until: Date.now() - 1 })
      .where('id', '=', t.id)
      .execute();
    expect(await b.tick()).toBe(1);
    expect(f.driver.polls).toBe(1);
  });

  it('back-off: the delay to the next poll grows per attempt up to the maximum', async () => {
    const e = f.engine({ pollBaseMs: 100, pollMaxMs: 1000 });
    const t = await e.create(f.input(e));
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      const before = Date.now();
      await f.store.db.updateTable('tasks').set({ next_poll_at: 0 }).where('id', '=', t.id).execute();
      await e.tick();
      const row = await e.repo.get(t.id);
      delays.push(row!.nextPollAt - before);
    }
    // 200, 400, 800, 1000, 1000 … (±10 % jitter, + a few ms of test time)
    expect(delays[1]!).toBeGreaterThan(delays[0]!);
    expect(delays[2]!).toBeGreaterThan(delays[1]!);
    expect(Math.max(...delays)).toBeLessThanOrEqual(1100 + 200);
    expect((await e.repo.get(t.id))!.pollAttempts).toBe(6);
  });

  it('polls open tasks in parallel with bounded concurrency per channel', async () => {
    const e = f.engine({ perChannelConcurrency: 3 });
    f.driver.delayMs = 15;
    for (let i = 0; i < 12; i++)
      await e.create(f.input(e, { channel: i % 2 ? f.input(e).channel : { ...f.input(e).channel, id: 'ch2' } }));
    await f.store.db.updateTable('tasks').set({ next_poll_at: 0 }).execute();
    expect(await e.tick()).toBe(12);
    expect(f.driver.polls).toBe(12);
    expect(f.driver.maxInflight.get('ch1')).toBe(3);
    expect(f.driver.maxInflight.get('ch2')).toBe(3);
  });

  it('getFresh refreshes a stale open task but serves a fresh one from the store', async () => {
    const e = f.engine({ refreshStaleMs: 60_000 });
    const t = await e.create(f.input(e));
    await e.getFresh(t.id, f.tokenId);
    expect(f.driver.polls).toBe(0);
    await f.store.db
      .updateTable('tasks')
      .set({ updated_at: Date.now() - 120_000 })
      .where('id', '=', t.id)
      .execute();
    await e.getFresh(t.id, f.tokenId);
    expect(f.driver.polls).toBe(1);
    expect(await e.getFresh(t.id, 'tok_other')).toBeNull();
  });

  it('getFresh serves a stale task from the store while its account’s list round is fresh (three intervals), and asks the upstream after', async () => {
    let round = 0;
    const budget: QueryRate = {
      take: async () => true,
      claimRound: async () => true,
      roundDone: async () => undefined,
      lastRound: async () => round,
    };
    f.driver.queryAccount = () => 'acct';
    const e = f.engine({ refreshStaleMs: 1_000, listIntervalMs: 1_000 }, { queryRate: budget });
    const t = await e.create(f.input(e));
    const old = Date.now() - 60_000;
    await f.store.db
      .updateTable('tasks')
      .set({ created_at: old, updated_at: old, checked_at: old })
      .where('id', '=', t.id)
      .execute();
    // A round that began before the task was created does not speak for it.
    round = old - 1;
    await e.getFresh(t.id, f.tokenId);
    expect(f.driver.polls).toBe(1);
    await f.store.db.updateTable('tasks').set({ updated_at: old, checked_at: old }).where('id', '=', t.id).execute();
    round = Date.now() - 2_500;
    await e.getFresh(t.id, f.tokenId);
    expect(f.driver.polls).toBe(1);
    round = Date.now() - 3_200;
    await e.getFresh(t.id, f.tokenId);
    expect(f.driver.polls).toBe(2);
  });
});
