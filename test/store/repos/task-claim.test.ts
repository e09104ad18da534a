// The claim's schedule for tasks an account's list rounds show: their own poll is a fallback, several back-offs away,
// with a lease that outlasts it; tasks of an account no fresh round shows, and tasks not yet queued or running, keep
// the back-off. Runs on the test dialect's store (SQLite, or PostgreSQL in CI).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LISTED_POLL_BACKOFFS } from '../../../src/tasks/list-rounds.ts';
import type { TaskDriver, TaskRecord } from '../../../src/tasks/types.ts';
import { CHANNELS, engineFixture, type EngineFixture } from '../../support/task-engine.ts';

let f: EngineFixture;
beforeEach(async () => {
  f = await engineFixture();
});
afterEach(async () => f?.cleanup());

const MAX_MS = 30_000;
const LEASE_MS = 90_000;

/** ch1's account lists its tasks; ch2's account list fails (its tasks are not shown by any round). */
function listingDriver(open: () => TaskRecord[]): TaskDriver & { polls: string[] } {
  const polls: string[] = [];
  return {
    polls,
    poll: async (t) => {
      polls.push(t.channelId);
      return { state: 'in_progress', upstreamStatus: 'RUNNING' };
    },
    queryAccount: (c) => `acct-${c.id}`,
    listOpenStatuses: { RUNNING: 'in_progress' },
    listPage: async (c) => {
      if (c.id !== 'ch1') throw new Error('list unavailable');
      return { tasks: open().map((t) => ({ upstreamTaskId: t.upstreamTaskId!, status: 'RUNNING' })), totalPages: 1 };
    },
  };
}

const row = (id: string) =>
  f.store.db
    .selectFrom('tasks')
    .select(['next_poll_at', 'lease_until', 'state'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe('claims of listed tasks', () => {
  it('gives a listed channel’s running tasks a fallback poll and a lease beyond it; other tasks keep the back-off', async () => {
    const e = f.engine({ listIntervalMs: 50, pollBaseMs: 1000, pollMaxMs: MAX_MS, leaseMs: LEASE_MS });
    const tasks: TaskRecord[] = [];
    const driver = listingDriver(() => tasks);
    e.registerDriver('test-video', driver);
    for (let i = 0; i < 5; i++) tasks.push(await e.create(f.input(e)));
    for (let i = 0; i < 4; i++) tasks.push(await e.create(f.input(e, { channel: CHANNELS.ch2! })));
    // A ch1 task still waiting for a parallel-task slot is not on the list: it keeps the back-off and a round's lease.
    const waiting = tasks[0]!;
    await f.store.db.updateTable('tasks').set({ state: 'waiting' }).where('id', '=', waiting.id).execute();
    await e.rounds.run(new Map([['test-video', driver]]));
    expect(e.rounds.listed().kinds).toEqual([{ kind: 'test-video', channels: ['ch1'] }]);

    await f.store.db.updateTable('tasks').set({ next_poll_at: 0, poll_attempts: 0 }).execute();
    const before = Date.now();
    await e.tick();
    const after = Date.now();
    const listedMs = LISTED_POLL_BACKOFFS * MAX_MS;
    for (const t of tasks.slice(1, 5)) {
      const r = await row(t.id);
      expect(Number(r.next_poll_at)).toBeGreaterThanOrEqual(before + 0.9 * listedMs - 1);
      expect(Number(r.next_poll_at)).toBeLessThanOrEqual(after + 0.99 * listedMs + 1);
      expect(Number(r.lease_until)).toBeGreaterThanOrEqual(before + LEASE_MS + listedMs);
      expect(Number(r.lease_until)).toBeLessThanOrEqual(after + LEASE_MS + listedMs);
    }
    for (const t of tasks.slice(5)) {
      const r = await row(t.id);
      // The first back-off step: 2 s, less the jitter.
      expect(Number(r.next_poll_at)).toBeGreaterThanOrEqual(before + 1800 - 1);
      expect(Number(r.next_poll_at)).toBeLessThanOrEqual(after + 1980 + 1);
      expect(Number(r.lease_until)).toBeGreaterThanOrEqual(before + LEASE_MS + MAX_MS);
      expect(Number(r.lease_until)).toBeLessThanOrEqual(after + LEASE_MS + MAX_MS);
    }
    const w = await row(waiting.id);
    expect(Number(w.next_poll_at)).toBeLessThanOrEqual(after + 1980 + 1);
    expect(w.lease_until === null || Number(w.lease_until) <= after + LEASE_MS).toBe(true);
    // The list showed ch1's running tasks: only ch2's were asked about, each with a query of its own.
    expect(driver.polls.sort()).toEqual(['ch2', 'ch2', 'ch2', 'ch2']);
  });

  it('once the rounds stop being fresh, the listed channel’s tasks go back to the back-off', async () => {
    const e = f.engine({
      listIntervalMs: 50,
      pollBaseMs: 1000,
      pollMaxMs: MAX_MS,
      leaseMs: LEASE_MS,
      upstreamQueryQps: 0,
    });
    const tasks: TaskRecord[] = [];
    const driver = listingDriver(() => tasks);
    e.registerDriver('test-video', driver);
    for (let i = 0; i < 4; i++) tasks.push(await e.create(f.input(e)));
    await e.rounds.run(new Map([['test-video', driver]]));
    expect(e.rounds.listed().kinds).toHaveLength(1);
    // Three intervals (150 ms) without a round: stale.
    await new Promise((r) => setTimeout(r, 250));
    expect(e.rounds.listed().kinds).toEqual([]);
    await f.store.db.updateTable('tasks').set({ next_poll_at: 0, poll_attempts: 0 }).execute();
    // The tick starts a new pass but does not wait for it: its claim sees the stale round.
    await e.tick();
    const after = Date.now();
    for (const t of tasks) expect(Number((await row(t.id)).next_poll_at)).toBeLessThanOrEqual(after + 1980 + 1);
  });
});
