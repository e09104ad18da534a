// A list round over an account whose list is longer than the query rate lets through at once: its pages wait for
// room in the query rate (never more than it allows in a second) and the round completes, so every listed task is
// covered
// without a query of its own. A round whose pages find no room within its interval is cut short and covers nothing, and
// one
// waiting for room ends at once when the poller stops.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryQueryRate, type QueryRate } from '../../src/limits/query-rate.ts';
import { makeLogger } from '../../src/runtime/logger.ts';
import { ListRounds, roundFresh, type ListRoundDeps } from '../../src/tasks/list-rounds.ts';
import type { TaskDriver, TaskRecord } from '../../src/tasks/types.ts';
import { CHANNELS, engineFixture, type EngineFixture } from '../support/task-engine.ts';

let f: EngineFixture;
beforeEach(async () => {
  f = await engineFixture();
});
afterEach(async () => f?.cleanup());

const QPS = 15;
/** An account's query rate that another user (client reads, another instance) has spent: no query is let through. */
const SPENT: QueryRate = {
  take: async () => false,
  claimRound: async () => true,
  roundDone: async () => undefined,
  lastRound: async () => 0,
};

/**
 * A listing driver whose account list has `pages` pages, the tasks given spread over them; the times pages were read.
 */
function listing(tasks: readonly TaskRecord[], pages: number): { driver: TaskDriver; reads: number[] } {
  const reads: number[] = [];
  const driver: TaskDriver = {
    poll: async () => ({ state: 'in_progress', upstreamStatus: 'RUNNING' }),
    queryAccount: () => 'acct',
    listOpenStatuses: { RUNNING: 'in_progress' },
    // One task a page: the list's length is what its open tasks need.
    listPageSize: 1,
    listPage: async (_c, _from, pageNo) => {
      reads.push(Date.now());
      return {
        tasks: tasks
          .filter((_, i) => (i % pages) + 1 === pageNo)
          .map((t) => ({ upstreamTaskId: t.upstreamTaskId!, status: 'RUNNING' })),
        totalPages: pages,
      };
    },
  };
  return { driver, reads };
}

/** `n` open tasks of the fixture's kind, created through an engine. */
async function openTasks(n: number): Promise<TaskRecord[]> {
  const e = f.engine();
  const tasks: TaskRecord[] = [];
  for (let i = 0; i < n; i++) tasks.push(await e.create(f.input(e)));
  return tasks;
}

function rounds(
  listIntervalMs: number,
  queryRate: QueryRate = new MemoryQueryRate({ qps: QPS, burst: 2 }),
  stopping?: () => boolean,
  over: Partial<Pick<ListRoundDeps, 'finish' | 'move'>> = {},
): ListRounds {
  return new ListRounds({
    stopping,
    db: f.store.db,
    channels: { forTask: (id) => CHANNELS[id] },
    logger: makeLogger('silent'),
    queryRate,
    finish: async () => true,
    move: async () => undefined,
    now: Date.now,
    ...over,
    options: { listIntervalMs, pollTimeoutMs: 1000, upstreamQueryQps: QPS, pollMaxMs: 30_000 },
  });
}

describe('list rounds under the query rate', () => {
  it('a round speaks for its tasks for three of its intervals', () => {
    expect(roundFresh(10_000, 1_000, 13_000)).toBe(true);
    expect(roundFresh(10_000, 1_000, 13_001)).toBe(false);
    expect(roundFresh(10_000, 2_000, 16_000)).toBe(true);
  });

  it('reads a list of 12 pages at the query rate’s pace and covers every task on it', async () => {
    const tasks = await openTasks(12);
    const { driver, reads } = listing(tasks, 12);
    const r = rounds(100);
    await r.run(new Map([['test-video', driver]]));
    expect(reads).toHaveLength(12);
    // Never more than the query rate (15 a second, a burst of 2) in any one second.
    for (const at of reads) expect(reads.filter((x) => x >= at && x < at + 1000).length).toBeLessThanOrEqual(QPS + 2);
    for (const t of tasks) expect(r.covers('acct', t.upstreamTaskId!)).toBe(true);
  });

  it('names the channels of an account whose round is fresh, per task kind, and none once its rounds stop', async () => {
    const tasks = await openTasks(6);
    const { driver } = listing(tasks, 1);
    const r = rounds(100);
    expect(r.listed().kinds).toEqual([]);
    await r.run(new Map([['test-video', driver]]));
    expect(r.listed()).toEqual({ kinds: [{ kind: 'test-video', channels: ['ch1'] }], ms: 120_000 });
    // Fresh for three intervals (a page's share of the query rate sets it here: 2 × 1000 / 15 ≈ 134 ms), then no
    // longer.
    await new Promise((res) => setTimeout(res, 600));
    expect(r.listed().kinds).toEqual([]);
  });

  it('a round whose pages find no room in the query rate within its interval is cut short and covers nothing', async () => {
    const tasks = await openTasks(6);
    const { driver, reads } = listing(tasks, 6);
    const r = rounds(1000, SPENT);
    const t0 = Date.now();
    await r.run(new Map([['test-video', driver]]));
    // It waited for room for its interval (1 s), then gave up.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(reads).toEqual([]);
    for (const t of tasks) expect(r.covers('acct', t.upstreamTaskId!)).toBe(false);
    expect(r.listed().kinds).toEqual([]);
  });

  it('a round waiting for room in the query rate ends at once when the poller stops', async () => {
    const tasks = await openTasks(6);
    const { driver, reads } = listing(tasks, 6);
    let stopping = false;
    // An interval of 20 s: without the stop, the round would wait that long for its pages.
    const r = rounds(20_000, SPENT, () => stopping);
    const run = r.run(new Map([['test-video', driver]]));
    await new Promise((res) => setTimeout(res, 300));
    const stopAt = Date.now();
    stopping = true;
    await run;
    expect(Date.now() - stopAt).toBeLessThan(1000);
    expect(reads).toEqual([]);
  });
});

describe("the driver's listed statuses", () => {
  it('say which listed tasks are open, and in which state; any other status is an ending', async () => {
    const tasks = await openTasks(6);
    const listed = ['WAITING', 'WORKING', 'DONE', 'WAITING', 'WORKING', 'DONE'];
    const status = new Map(tasks.map((t, i) => [t.upstreamTaskId!, listed[i]!]));
    const driver: TaskDriver = {
      poll: async () => ({ state: 'in_progress', upstreamStatus: 'WORKING' }),
      queryAccount: () => 'acct',
      listOpenStatuses: { WAITING: 'queued', WORKING: 'in_progress' },
      listPage: async () => ({
        tasks: tasks.map((t) => ({ upstreamTaskId: t.upstreamTaskId!, status: status.get(t.upstreamTaskId!)! })),
        totalPages: 1,
      }),
    };
    const finished: string[] = [];
    const moved = new Map<string, string>();
    const r = rounds(100, undefined, undefined, {
      finish: async (t) => {
        finished.push(t.upstreamTaskId!);
        return true;
      },
      move: async (t, out) => {
        moved.set(t.upstreamTaskId!, `${out.state}/${out.upstreamStatus}`);
      },
    });
    await r.run(new Map([['test-video', driver]]));
    expect(finished.sort()).toEqual([tasks[2]!, tasks[5]!].map((t) => t.upstreamTaskId!).sort());
    const open = tasks
      .filter((_, i) => listed[i] !== 'DONE')
      .map((t, i) => [t.upstreamTaskId!, i % 2 === 0 ? 'queued/WAITING' : 'in_progress/WORKING']);
    expect(moved).toEqual(new Map(open as Array<[string, string]>));
  });
});

describe("a hostile upstream's task list", () => {
  /** A list that shows `ours` on its first page, with `extra` made-up ids after them, and claims `totalPages`. */
  function hostile(
    ours: readonly TaskRecord[],
    extra: number,
    totalPages: number,
  ): { driver: TaskDriver; reads: number[] } {
    const reads: number[] = [];
    const made = Array.from({ length: extra }, (_, i) => ({ upstreamTaskId: `made_up_${i}`, status: 'SUCCEEDED' }));
    const driver: TaskDriver = {
      poll: async () => ({ state: 'in_progress', upstreamStatus: 'RUNNING' }),
      queryAccount: () => 'acct',
      listOpenStatuses: { RUNNING: 'in_progress' },
      listPageSize: 2,
      listPage: async (_c, _from, pageNo) => {
        reads.push(pageNo);
        const mine = pageNo === 1 ? ours.map((t) => ({ upstreamTaskId: t.upstreamTaskId!, status: 'RUNNING' })) : [];
        return { tasks: [...mine, ...made], totalPages };
      },
    };
    return { driver, reads };
  }

  it('a total_page of 10^9: the round reads only the pages its open tasks need, ends, and does not speak for the rest', async () => {
    const tasks = await openTasks(6);
    const { driver, reads } = hostile(tasks.slice(0, 2), 0, 1e9);
    const r = rounds(100);
    await r.run(new Map([['test-video', driver]]));
    // Six open tasks on pages of two: three pages, as many again, and two more.
    expect(reads).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(r.covers('acct', tasks[0]!.upstreamTaskId!)).toBe(true);
    // Read in part: its channels keep their own polls.
    expect(r.listed().kinds).toEqual([]);
  });

  it('150,000 made-up ids on one page: only the page size asked for is kept, and the next round lists again', async () => {
    const tasks = await openTasks(4);
    const { driver, reads } = hostile(tasks.slice(0, 2), 150_000, 1);
    const r = rounds(100);
    const drivers = new Map([['test-video', driver]]);
    await r.run(drivers);
    expect(reads).toEqual([1]);
    expect(r.covers('acct', tasks[0]!.upstreamTaskId!)).toBe(true);
    expect(r.covers('acct', 'made_up_0')).toBe(false);
    await new Promise((res) => setTimeout(res, 300));
    await r.run(drivers);
    expect(reads).toEqual([1, 1]);
  });
});
