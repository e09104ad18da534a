import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { errors as undiciErrors, type Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeadlineSweep } from '../../src/adapters/deadlines.ts';

/** A stand-in for undici's controller: records what the sweep aborted it with. */
function controller(): Dispatcher.DispatchController & { reason: unknown } {
  const c = {
    reason: undefined as unknown,
    aborted: false,
    paused: false,
    abort: (r: Error) => void (c.reason = r),
    pause() {},
    resume() {},
  };
  return c as unknown as Dispatcher.DispatchController & { reason: unknown };
}
// The sweep's clock is the test's (fake timers: Date.now and setInterval move only when the test moves them), so a
// loaded host cannot turn 100 ms between two progress marks into more than the 200 ms idle limit.
const wait = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('deadline sweep', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('aborts a call with no answer as a headers timeout, one past its body idle limit as a body timeout', async () => {
    const sweep = new DeadlineSweep();
    const a = controller();
    const b = controller();
    sweep.deadline(150, 10_000).started(a);
    const db = sweep.deadline(10_000, 150);
    db.started(b);
    db.progressed();
    expect(sweep.size).toBe(2);
    await wait(400);
    expect(a.reason).toBeInstanceOf(undiciErrors.HeadersTimeoutError);
    expect(b.reason).toBeInstanceOf(undiciErrors.BodyTimeoutError);
    expect(sweep.size).toBe(0);
  });

  it('progress keeps a call alive; a finished call is forgotten and never aborted', async () => {
    const sweep = new DeadlineSweep();
    const busy = controller();
    const finished = controller();
    const d = sweep.deadline(10_000, 200);
    d.started(busy);
    const f = sweep.deadline(100, 100);
    f.started(finished);
    f.done();
    for (let i = 0; i < 5; i++) {
      await wait(100);
      d.progressed();
    }
    expect(busy.reason).toBeUndefined();
    expect(finished.reason).toBeUndefined();
    expect(sweep.size).toBe(1);
    d.done();
    expect(sweep.size).toBe(0);
  });

  it('calls finish in any order: the rest stay watched, a finished one is never aborted, done twice is harmless', async () => {
    const sweep = new DeadlineSweep();
    const cs = [controller(), controller(), controller(), controller()];
    const ds = cs.map((c) => {
      const d = sweep.deadline(150, 150);
      d.started(c);
      return d;
    });
    ds[1]!.done(); // from the middle
    ds[0]!.done(); // the head
    ds[3]!.done(); // the tail
    ds[3]!.done();
    expect(sweep.size).toBe(1);
    await wait(400);
    expect(cs.map((c) => c.reason !== undefined)).toEqual([false, false, true, false]);
    expect(sweep.size).toBe(0);
    // the list is usable again after it emptied
    const again = controller();
    sweep.deadline(100, 100).started(again);
    await wait(300);
    expect(again.reason).toBeInstanceOf(undiciErrors.HeadersTimeoutError);
  });

  it('a finished deadline lets go of its call, even while something still holds the deadline', async () => {
    // Why it matters: a collection of live deadlines that reallocates its table as calls come and go leaves
    // discarded tables in the old generation, still pointing at the deadlines they held until the next full GC.
    // Through the controller those reach the whole upstream call (request, handler, headers, chunks), which would
    // then survive young collections and be promoted on every request under load.
    vi.useRealTimers(); // a real turn of the event loop between collections: a WeakRef is cleared only after its job
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const sweep = new DeadlineSweep();
    const d = sweep.deadline(10_000, 10_000);
    const call = new WeakRef(startAndFinish(d));
    for (let i = 0; i < 5 && call.deref() !== undefined; i++) {
      await new Promise((r) => setImmediate(r));
      gc();
    }
    expect(d.inBody).toBe(false); // the deadline itself is still held here
    expect(call.deref()).toBeUndefined();
    expect(sweep.size).toBe(0);
  });
});

/** Starts a call on the deadline and finishes it; returns the call's controller (no other reference is kept). */
function startAndFinish(d: ReturnType<DeadlineSweep['deadline']>): object {
  const c = controller();
  d.started(c);
  d.done();
  return c;
}
