// The task engine reads the clock it is given (compose.ts hands it the meter's), never the wall clock: a test that
// moves that clock moves task times, due polls and the maximum age with it. Over a real store (both dialects).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { engineFixture, type EngineFixture } from '../support/task-engine.ts';

let f: EngineFixture;
beforeEach(async () => {
  f = await engineFixture();
});
afterEach(async () => f?.cleanup());

const DAY = 24 * 3600_000;

describe('the task engine’s clock', () => {
  it('a task is written at the clock’s time, and falls due by it', async () => {
    let now = Date.now() + 30 * DAY;
    const e = f.engine({}, { now: () => now });
    const t = await e.create(f.input(e));
    expect(t.createdAt).toBe(now);
    expect(t.nextPollAt).toBe(now + e.options.pollBaseMs);
    // By the wall clock the task is not due for a month: only the engine's clock makes the poller take it.
    now += e.options.pollBaseMs;
    expect(await e.tick()).toBe(1);
    expect(f.driver.polls).toBe(1);
  });

  it('the poller ends a task past the maximum age by the clock, with no row moved back in time', async () => {
    let now = Date.now();
    const e = f.engine({}, { now: () => now });
    const t = await e.create(f.input(e));
    now += e.options.maxAgeMs + 1;
    expect(await e.tick()).toBe(1);
    const after = await e.repo.get(t.id);
    expect(after?.state).toBe('failed');
    expect(after?.error?.code).toBe('task_timeout');
    expect(after?.finishedAt).toBe(now);
  });

  it('given no clock, the engine reads the meter’s', async () => {
    const now = Date.now() + 30 * DAY;
    const meter = Object.create(f.meter, { now: { value: () => now } }) as typeof f.meter;
    const e = f.engine({}, { meter: () => meter });
    const t = await e.create(f.input(e));
    expect(t.createdAt).toBe(now);
  });
});
