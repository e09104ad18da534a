// store-independent: GroupCommit is tested with its writes in the test's hands; no store is opened.
// The write-behind queue's age bound (GroupCommit.behind): while the oldest row queued is younger than maxAgeMs the
// caller goes on at once; past it, the caller waits until the rows queued before it are written — so answers stop
// piling up unwritten behind a slow writer. Not while writes fail. The clock (performance.now) and timers are fake.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GroupCommit } from '../../src/store/group-commit.ts';

/** A queue whose writes end when the test says (`release`), or fail while `failing`. */
function slowQueue() {
  const written: number[] = [];
  const pending: Array<() => void> = [];
  let failing = false;
  const gc = new GroupCommit<number>({
    intervalMs: 10,
    maxBatch: 200,
    maxAgeMs: 100,
    write: (batch) =>
      new Promise<void>((resolve, reject) => {
        if (failing) return reject(new Error('store down'));
        pending.push(() => {
          written.push(...batch);
          resolve();
        });
      }),
    onError: () => undefined,
  });
  return {
    gc,
    written,
    release: () => {
      for (const p of pending.splice(0)) p();
    },
    fail: (v: boolean) => {
      failing = v;
    },
  };
}

/** Whether `p` has settled after the pending microtasks ran. */
async function settled(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('GroupCommit: the age bound', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('callers go on while the oldest row is younger than maxAgeMs; past it, they wait until the rows before them are written', async () => {
    const q = slowQueue();
    expect(q.gc.behind()).toBeUndefined();
    q.gc.push(1);
    expect(q.gc.behind()).toBeUndefined();
    // The writer took row 1 at 10 ms and has not finished: rows keep coming, answered at once until 100 ms.
    await vi.advanceTimersByTimeAsync(99);
    q.gc.push(2);
    expect(q.gc.behind()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(2);
    q.gc.push(3);
    const waiting = q.gc.behind();
    expect(waiting).toBeInstanceOf(Promise);
    expect(await settled(waiting!)).toBe(false);
    // Row 1's write ends: rows 2 and 3 are still queued, so the caller still waits.
    q.release();
    expect(await settled(waiting!)).toBe(false);
    expect(q.written).toEqual([1]);
    // The next write (rows 2 and 3) ends: the caller goes on.
    await vi.advanceTimersByTimeAsync(10);
    q.release();
    expect(await settled(waiting!)).toBe(true);
    expect(q.written).toEqual([1, 2, 3]);
    expect(q.gc.behind()).toBeUndefined();
  });

  it('while writes fail, no caller is held back, and those waiting are let go at the failure', async () => {
    const q = slowQueue();
    q.gc.push(1);
    await vi.advanceTimersByTimeAsync(150);
    q.gc.push(2);
    const waiting = q.gc.behind();
    expect(waiting).toBeInstanceOf(Promise);
    // Row 1's write ends; the store then fails row 2's.
    q.fail(true);
    q.release();
    expect(await settled(waiting!)).toBe(false);
    await vi.advanceTimersByTimeAsync(10);
    expect(await settled(waiting!)).toBe(true);
    expect([q.written, q.gc.queued]).toEqual([[1], 1]);
    // Row 2 waits for the store, older than the bound, and answers are not held back meanwhile.
    await vi.advanceTimersByTimeAsync(20);
    q.gc.push(3);
    expect(q.gc.behind()).toBeUndefined();
  });
});
