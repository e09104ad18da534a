// store-independent: the group commit is driven with stand-in flushes, no store.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FlushTick, GroupCommit } from '../../src/store/group-commit.ts';

function recorder(opts: { fail?: number; delayMs?: number } = {}) {
  const batches: number[][] = [];
  const committed: number[] = [];
  const errors: unknown[] = [];
  let failuresLeft = opts.fail ?? 0;
  const gc = new GroupCommit<number>({
    intervalMs: 5,
    maxBatch: 4,
    write: async (batch) => {
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      if (failuresLeft > 0) {
        failuresLeft--;
        throw new Error('store down');
      }
      batches.push([...batch]);
    },
    onCommitted: (batch) => committed.push(...batch),
    onError: (e) => errors.push(e),
  });
  return { gc, batches, committed, errors };
}

describe('GroupCommit', () => {
  it('writes queued rows in batches of at most maxBatch, in order, when flushed', async () => {
    const r = recorder();
    for (let i = 1; i <= 10; i++) r.gc.push(i);
    await r.gc.flush();
    expect(r.batches.flat()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(Math.max(...r.batches.map((b) => b.length))).toBeLessThanOrEqual(4);
    expect(r.committed).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(r.gc.queued).toBe(0);
  });

  it('writes on its own after the interval, without a flush', async () => {
    const r = recorder();
    r.gc.push(1);
    r.gc.push(2);
    expect(r.batches).toEqual([]);
    await new Promise((res) => setTimeout(res, 40));
    expect(r.batches).toEqual([[1, 2]]);
  });

  it('keeps a failed batch queued and writes it on a later attempt (nothing lost, nothing written twice)', async () => {
    const r = recorder({ fail: 1 });
    r.gc.push(1);
    r.gc.push(2);
    await r.gc.flush();
    expect(r.errors).toHaveLength(1);
    expect(r.batches).toEqual([]);
    expect(r.gc.queued).toBe(2);
    expect(r.committed).toEqual([]);
    await r.gc.flush();
    expect(r.batches).toEqual([[1, 2]]);
    expect(r.committed).toEqual([1, 2]);
  });

  it('rows arriving while a batch is being written wait for the next batch (no stream of one-row batches)', async () => {
    const r = recorder({ delayMs: 15 });
    r.gc.push(1);
    const first = r.gc.flush();
    await new Promise((res) => setTimeout(res, 5)); // the first write is now in progress
    r.gc.push(2);
    r.gc.push(3);
    await first;
    expect(r.batches).toEqual([[1]]);
    await r.gc.flush();
    expect(r.batches).toEqual([[1], [2, 3]]);
  });
});

describe('GroupCommit: a row the store refuses', () => {
  // A refusal as the SQLite driver throws it; a fault of the store has no such code.
  const refusal = (row: number) =>
    Object.assign(new Error(`row ${row} refused`), { code: 'SQLITE_CONSTRAINT_NOTNULL' });
  function refusing(bad: Set<number>, down = { value: false }, faultAt = { row: -1 }) {
    const committed: number[] = [];
    const rejected: number[] = [];
    const attempts: number[][] = [];
    const gc = new GroupCommit<number>({
      intervalMs: 5,
      maxBatch: 10,
      write: async (batch) => {
        attempts.push([...batch]);
        if (down.value) throw new Error('store down');
        if (batch.length === 1 && batch[0] === faultAt.row)
          throw Object.assign(new Error('connection lost'), { code: 'ECONNRESET' });
        const b = batch.find((x) => bad.has(x));
        if (b !== undefined) throw refusal(b);
      },
      onCommitted: (batch) => committed.push(...batch),
      onError: () => undefined,
      onRejected: (rows) => rejected.push(...rows),
    });
    return { gc, committed, rejected, attempts, down, faultAt };
  }

  it('is set aside when the other rows of its batch go through; the rows after it are not held back', async () => {
    const r = refusing(new Set([3]));
    for (let i = 1; i <= 6; i++) r.gc.push(i);
    await r.gc.flush();
    expect(r.committed.sort((a, b) => a - b)).toEqual([1, 2, 4, 5, 6]);
    expect(r.rejected).toEqual([3]);
    expect(r.gc.queued).toBe(0);
    r.gc.push(7);
    await r.gc.flush();
    expect(r.committed).toContain(7);
  });

  it('is not set aside while the store itself fails: the batch stays queued, and few rows are tried alone', async () => {
    const r = refusing(new Set(), { value: true });
    for (let i = 1; i <= 8; i++) r.gc.push(i);
    await r.gc.flush();
    expect(r.rejected).toEqual([]);
    expect(r.committed).toEqual([]);
    expect(r.gc.queued).toBe(8);
    // One batch attempt, then at most three single rows before giving up on this round.
    expect(r.attempts.length).toBeLessThanOrEqual(4);
    r.down.value = false;
    await r.gc.flush();
    expect(r.committed.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('a fault of the store met row by row keeps that row and the rows after it queued: never set aside, written later', async () => {
    const r = refusing(new Set([2]));
    r.faultAt.row = 4;
    for (let i = 1; i <= 6; i++) r.gc.push(i);
    await r.gc.flush();
    // 1 and 3 written, 2 refused; the pass stopped at 4's connection fault: 4, 5 and 6 wait, none rejected.
    expect(r.committed.sort((a, b) => a - b)).toEqual([1, 3]);
    expect(r.rejected).toEqual([2]);
    expect(r.gc.queued).toBe(3);
    r.faultAt.row = -1;
    await r.gc.flush();
    expect(r.committed.sort((a, b) => a - b)).toEqual([1, 3, 4, 5, 6]);
    expect(r.rejected).toEqual([2]);
    expect(r.gc.queued).toBe(0);
  });

  it('an error that is not a refusal is never one, however many rows meet it', async () => {
    const tried: number[][] = [];
    const gc = new GroupCommit<number>({
      intervalMs: 5,
      maxBatch: 10,
      write: async (b) => {
        tried.push([...b]);
        throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
      },
      onError: () => undefined,
      onRejected: () => {
        throw new Error('a passing fault set rows aside');
      },
    });
    for (let i = 1; i <= 5; i++) gc.push(i);
    await gc.flush();
    expect(gc.queued).toBe(5);
    // The batch, then its first row alone: the pass stops at the first fault.
    expect(tried).toEqual([[1, 2, 3, 4, 5], [1]]);
  });

  it('without onRejected, a refused row keeps its batch queued (the old behaviour)', async () => {
    const committed: number[] = [];
    const gc = new GroupCommit<number>({
      intervalMs: 5,
      maxBatch: 10,
      write: async (b) => {
        if (b.includes(2)) throw new Error('refused');
      },
      onCommitted: (b) => committed.push(...b),
      onError: () => undefined,
    });
    gc.push(1);
    gc.push(2);
    await gc.flush();
    expect(committed).toEqual([]);
    expect(gc.queued).toBe(2);
  });
});

describe('GroupCommit backlog', () => {
  it('reports its backlog: rows queued and how long the oldest has waited, through a slow write and after it', async () => {
    let release: () => void = () => undefined;
    const gc = new GroupCommit<number>({
      intervalMs: 60_000,
      maxBatch: 10,
      write: () => new Promise<void>((r) => (release = r)),
      onError: () => undefined,
    });
    expect([gc.queued, gc.lagMs()]).toEqual([0, 0]);
    gc.push(1);
    await new Promise((r) => setTimeout(r, 40));
    // (A timer may fire a fraction of a millisecond early on the performance clock.)
    expect(gc.lagMs()).toBeGreaterThanOrEqual(35);
    const writeBegan = performance.now();
    const flushed = gc.flush();
    await new Promise((r) => setTimeout(r, 40));
    // A row queued while the batch is written waits behind it.
    gc.push(2);
    expect(gc.queued).toBe(2);
    expect(gc.lagMs()).toBeGreaterThanOrEqual(70);
    release();
    await flushed;
    // Row 2 came in during the write: its wait is counted from the write's start, never from before it.
    expect(gc.queued).toBe(1);
    expect(gc.lagMs()).toBeGreaterThanOrEqual(35);
    expect(gc.lagMs()).toBeLessThanOrEqual(performance.now() - writeBegan + 1);
    const last = gc.flush();
    await new Promise((r) => setTimeout(r, 5));
    release();
    await last;
    expect([gc.queued, gc.lagMs()]).toEqual([0, 0]);
  });
});

describe('GroupCommit on a shared tick, and handing rows over', () => {
  // The clock is the test's (setTimeout only): what flushes when is decided by the timers alone, not the host's load.
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
  afterEach(() => vi.useRealTimers());

  /** Queues whose writes are recorded in order; `fail` writes of a queue fail first. */
  function queues() {
    const writes: Array<[string, number[]]> = [];
    const queue = (name: string, tick: FlushTick | undefined, fail = 0) => {
      let failuresLeft = fail;
      return new GroupCommit<number>({
        intervalMs: 5,
        maxBatch: 100,
        ...(tick ? { tick } : {}),
        write: async (rows) => {
          writes.push([name, [...rows]]);
          if (failuresLeft-- > 0) throw new Error('store down');
        },
        onError: () => undefined,
      });
    };
    return { writes, queue };
  }

  it('queues on one tick flush together, an interval after the first row of either', async () => {
    const shared = queues();
    const tick = new FlushTick(5);
    const ledger = shared.queue('ledger', tick);
    const log = shared.queue('log', tick);
    ledger.push(1);
    await vi.advanceTimersByTimeAsync(3);
    log.push(2);
    await vi.advanceTimersByTimeAsync(2);
    expect(shared.writes).toEqual([
      ['ledger', [1]],
      ['log', [2]],
    ]);
    // Each on its own timer, the second queue flushes an interval after its own first row.
    const apart = queues();
    const a = apart.queue('ledger', undefined);
    const b = apart.queue('log', undefined);
    a.push(1);
    await vi.advanceTimersByTimeAsync(3);
    b.push(2);
    await vi.advanceTimersByTimeAsync(2);
    expect(apart.writes).toEqual([['ledger', [1]]]);
    await vi.advanceTimersByTimeAsync(3);
    expect(apart.writes).toEqual([
      ['ledger', [1]],
      ['log', [2]],
    ]);
  });

  it('a queue waiting out a failed write keeps its back-off: the tick flushes only the others', async () => {
    const t = queues();
    const tick = new FlushTick(5);
    const failing = t.queue('ledger', tick, 1);
    const other = t.queue('log', tick);
    failing.push(1);
    await vi.advanceTimersByTimeAsync(5); // the first attempt fails: its retry waits 100 ms
    other.push(2);
    other.push(3);
    await vi.advanceTimersByTimeAsync(20);
    expect(t.writes).toEqual([
      ['ledger', [1]],
      ['log', [2, 3]],
    ]);
    await vi.advanceTimersByTimeAsync(100);
    expect(t.writes.at(-1)).toEqual(['ledger', [1]]);
    expect(t.writes).toHaveLength(3);
    expect(failing.queued).toBe(0);
  });

  it('handOver resolves once the rows queued are handed to write, before that write ends', async () => {
    let release: () => void = () => undefined;
    const handed: number[][] = [];
    const gc = new GroupCommit<number>({
      intervalMs: 60_000,
      maxBatch: 100,
      write: (rows) => {
        handed.push([...rows]);
        return new Promise<void>((r) => (release = r));
      },
      onCommitted: () => undefined,
      onError: () => undefined,
    });
    await gc.handOver(); // nothing queued
    expect(handed).toEqual([]);
    gc.push(1);
    gc.push(2);
    await gc.handOver();
    expect(handed).toEqual([[1, 2]]);
    expect(gc.queued).toBe(2); // not written yet
    await gc.handOver(); // already handed over: at once, no second write
    expect(handed).toEqual([[1, 2]]);
    release();
    await gc.flush();
    expect(gc.queued).toBe(0);
  });

  it('rows whose write failed are queued again, not handed over: handOver tries them again', async () => {
    let failuresLeft = 1;
    const attempts: number[][] = [];
    const gc = new GroupCommit<number>({
      intervalMs: 60_000,
      maxBatch: 100,
      write: async (rows) => {
        attempts.push([...rows]);
        if (failuresLeft-- > 0) throw new Error('store down');
      },
      onError: () => undefined,
    });
    gc.push(1);
    await gc.flush();
    expect(attempts).toEqual([[1]]);
    expect(gc.queued).toBe(1);
    await gc.handOver();
    expect(attempts).toEqual([[1], [1]]);
  });
});
