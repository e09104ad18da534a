// An operator's cancel racing the task's own completion, on the suite's dialect: each task ends either charged once
// (succeeded) or cancelled with nothing charged — never both, never neither — and the token's hold goes back.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Meter } from '../../src/metering/types.ts';
import { TasksRepo } from '../../src/store/repos/tasks.ts';
import { DEFAULT_TASK_ENGINE_OPTIONS, TaskEngine } from '../../src/tasks/engine.ts';
import { makeLogger } from '../../src/runtime/logger.ts';
import { CHANNELS, engineFixture, type EngineFixture } from '../support/task-engine.ts';

let f: EngineFixture;
beforeAll(async () => {
  f = await engineFixture();
});
afterAll(async () => f?.cleanup());

it('cancel vs a poll that finds the task succeeded: charged once or cancelled, never both', async () => {
  const engine = f.engine();
  const outcomes = { succeeded: 0, cancelled: 0 };
  for (let i = 0; i < 24; i++) {
    const t = await engine.create(f.input(engine));
    f.driver.outcomes.set(t.upstreamTaskId!, {
      state: 'succeeded',
      upstreamStatus: 'SUCCEEDED',
      reported: { outputSeconds: 5, resolution: 720 },
      result: { url: 'https://x/v.mp4' },
    });
    // Vary the interleaving: the poll answers after 0–3 ms, the cancel starts first or second.
    f.driver.delayMs = i % 4;
    const poll = () => engine.pollNow(t).catch(() => null);
    const cancel = async () => {
      await new Promise((r) => setTimeout(r, i % 6));
      return engine.cancel(t.id);
    };
    await (i % 2 === 0 ? Promise.all([poll(), cancel()]) : Promise.all([cancel(), poll()]));
    // A poll that lost its lease to nothing else may need one more round to finish; the cancel's outcome is final.
    let after = (await engine.repo.get(t.id))!;
    if (after.state === 'in_progress' || after.state === 'queued') after = await engine.pollNow(after);
    const ledger = await f.store.db.selectFrom('ledger').select('amount').where('task_id', '=', t.id).execute();
    const hold = await f.store.db
      .selectFrom('holds')
      .select('state')
      .where('hold_key', '=', t.id)
      .executeTakeFirstOrThrow();
    if (after.state === 'succeeded') {
      expect(ledger, t.id).toHaveLength(1);
      expect(hold.state).toBe('settled');
      outcomes.succeeded++;
    } else {
      expect(after.state, t.id).toBe('cancelled');
      expect(ledger, t.id).toHaveLength(0);
      expect(hold.state).toBe('released');
      expect(after.error?.code).toBe('task_cancelled');
      outcomes.cancelled++;
    }
  }
  expect(outcomes.succeeded + outcomes.cancelled).toBe(24);
  // Every hold closed: nothing left held against the token.
  expect((await f.tokenRow()).held).toBe(0);
});

it('a finished task is not cancelled (not_open); a task being charged is left to finish', async () => {
  const engine = f.engine();
  const t = await engine.create(f.input(engine));
  f.driver.outcomes.set(t.upstreamTaskId!, {
    state: 'succeeded',
    upstreamStatus: 'SUCCEEDED',
    reported: { outputSeconds: 5, resolution: 720 },
  });
  await engine.pollNow(t);
  expect((await engine.cancel(t.id))!.outcome).toBe('not_open');
  expect(await engine.cancel('task_nope')).toBeNull();

  // The settle won the hold's compare-and-set but the task row is not yet moved: the cancel must not touch it.
  const u = await engine.create(f.input(engine));
  await f.meter.settle(
    { taskId: u.id, tokenId: u.tokenId, model: u.model, billingModel: u.billingModel },
    { kind: 'video', outputSeconds: 5, tier: '720p' },
  );
  const r = (await engine.cancel(u.id))!;
  expect(r.outcome).toBe('finishing');
  expect(r.task.state).toBe('queued');
});

/** The fixture's meter, with a pause after a settle or a release committed: the other side runs in that window. */
function gatedEngine(pauseAfter: 'settle' | 'release') {
  let reached!: () => void;
  let go!: () => void;
  const atGate = new Promise<void>((r) => (reached = r));
  const gate = new Promise<void>((r) => (go = r));
  const meter: Meter = Object.create(f.meter) as Meter;
  const wrap =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      const r = await fn(...a);
      reached();
      await gate;
      return r;
    };
  if (pauseAfter === 'settle') meter.settle = wrap(f.meter.settle.bind(f.meter));
  else meter.release = wrap(f.meter.release.bind(f.meter));
  const engine = new TaskEngine({
    repo: new TasksRepo(f.store.db, f.store.dialect),
    meter: () => meter,
    channels: { forTask: (id) => CHANNELS[id] },
    chargedUsage: f.chargedUsage,
    logger: makeLogger('silent'),
    options: { ...DEFAULT_TASK_ENGINE_OPTIONS, pollerEnabled: false, refreshStaleMs: 0 },
  });
  engine.registerDriver('test-video', f.driver);
  return { engine, atGate, go };
}

it('a cancel sent while a success is being settled waits for it: the task is charged once and succeeds, the cancel is refused', async () => {
  const plain = f.engine();
  const t = await plain.create(f.input(plain));
  f.driver.delayMs = 0;
  f.driver.outcomes.set(t.upstreamTaskId!, {
    state: 'succeeded',
    upstreamStatus: 'SUCCEEDED',
    reported: { outputSeconds: 5, resolution: 720 },
  });
  // The settle's charge is written, and its transaction (charge and move to succeeded together) is still open.
  const { engine, atGate, go } = gatedEngine('settle');
  const polled = engine.pollNow(t);
  await atGate;
  const cancelled = plain.cancel(t.id);
  go();
  const r = (await cancelled)!;
  // The cancel met the settled hold (`finishing`: PostgreSQL, where it ran while the success committed) or the task
  // already succeeded (`not_open`: SQLite, whose one connection made it wait for the commit).
  expect(['finishing', 'not_open']).toContain(r.outcome);
  expect((await polled).state).toBe('succeeded');
  expect((await plain.repo.get(t.id))!.state).toBe('succeeded');
  expect(await f.store.db.selectFrom('ledger').select('amount').where('task_id', '=', t.id).execute()).toHaveLength(1);
});

it("a poll lands between the cancel's release and its task update: the task ends cancelled, nothing charged", async () => {
  const plain = f.engine();
  const t = await plain.create(f.input(plain));
  f.driver.delayMs = 0;
  f.driver.outcomes.set(t.upstreamTaskId!, {
    state: 'succeeded',
    upstreamStatus: 'SUCCEEDED',
    reported: { outputSeconds: 5, resolution: 720 },
  });
  const { engine, atGate, go } = gatedEngine('release');
  const cancelled = engine.cancel(t.id);
  await atGate;
  // The upstream says succeeded; the hold is already released: this poll must not make it a free success.
  const polled = await plain.pollNow(t);
  expect(polled.state).not.toBe('succeeded');
  go();
  const r = (await cancelled)!;
  expect(r.outcome).toBe('cancelled');
  expect((await plain.repo.get(t.id))!.state).toBe('cancelled');
  expect(await f.store.db.selectFrom('ledger').select('amount').where('task_id', '=', t.id).execute()).toHaveLength(0);
});
