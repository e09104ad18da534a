// Lost submits in the task engine over a real store (SQLite, or PostgreSQL with TOLLWAY_TEST_DIALECT=postgres),
// with a scripted driver that can look a task up upstream: a row left `submitting` by a gateway that stopped
// mid-submit is adopted when the upstream has it (charged once), failed uncharged when it certainly does not,
// retried when the upstream cannot tell; the creation is never sent twice, and a creating instance that finishes
// late never undoes an adoption.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import type { TaskEngine } from '../../src/tasks/engine.ts';
import type { SubmitOutcome, TaskRecord } from '../../src/tasks/types.ts';
import { engineFixture, ScriptedDriver, type EngineFixture } from '../support/task-engine.ts';

/** Answers lookups by our task id: a known upstream task, `absent`, or `error` (the upstream cannot tell now). */
class RecoveringDriver extends ScriptedDriver {
  upstream = new Map<string, SubmitOutcome | 'error'>();
  lookups = 0;

  async recoverSubmit(task: TaskRecord): Promise<SubmitOutcome | null> {
    this.lookups += 1;
    const r = this.upstream.get(task.id);
    if (r === 'error') throw new GatewayError('upstream_unavailable', 'upstream down');
    return r ?? null;
  }
}

const KIND = 'test-recoverable';
const LEASE = 1000;
let f: EngineFixture;
let driver: RecoveringDriver;
beforeEach(async () => {
  f = await engineFixture();
  driver = new RecoveringDriver();
});
afterEach(async () => f?.cleanup());

const ledger = (taskId: string) => f.store.db.selectFrom('ledger').selectAll().where('task_id', '=', taskId).execute();
const hold = (taskId: string) =>
  f.store.db.selectFrom('holds').selectAll().where('hold_key', '=', taskId).executeTakeFirst();

function engine(opts: Parameters<EngineFixture['engine']>[0] = {}): TaskEngine {
  const e = f.engine({ leaseMs: LEASE, ...opts });
  e.registerDriver(KIND, driver);
  return e;
}

/**
 * An instance that stops mid-submit: the row and hold are written and the creation is sent (`submits` counts it),
 * but its answer is never stored. `settle` lets the test end the submit later (a slow instance, not a dead one).
 * The row is then aged `ageMs` with its lease and deadline passed, as a restarted instance finds it.
 */
async function crashedMidSubmit(e: TaskEngine, id: string, ageMs: number) {
  let submits = 0;
  let settle!: { ok: (o: SubmitOutcome) => void; fail: (err: Error) => void };
  const created = e.create(
    f.input(e, {
      id,
      kind: KIND,
      submit: () => {
        submits += 1;
        return new Promise<SubmitOutcome>((ok, fail) => (settle = { ok, fail }));
      },
    }),
  );
  for (let i = 0; i < 100 && !(await hold(id)); i++) await new Promise((r) => setTimeout(r, 10));
  expect((await hold(id))?.state).toBe('held');
  const at = Date.now() - ageMs;
  await f.store.db
    .updateTable('tasks')
    .set({ created_at: at, lease_until: at + LEASE, next_poll_at: at + LEASE })
    .where('id', '=', id)
    .execute();
  return { created, settle: () => settle, submits: () => submits };
}

describe('lost submits (task engine)', () => {
  it('found upstream → adopted with its upstream id, polled to success and charged exactly once by racing instances; never re-submitted', async () => {
    const a = engine();
    const crashed = await crashedMidSubmit(a, 'task_found', 3 * LEASE);
    driver.upstream.set('task_found', {
      upstreamTaskId: 'up_found',
      upstreamRequestId: 'rid-found',
      upstreamStatus: 'submitted',
      state: 'queued',
      channelId: 'ch2',
    });
    const b = engine();
    const c = engine();
    await Promise.all([b.tick(), c.tick()]);
    const adopted = await b.repo.get('task_found');
    expect(adopted).toMatchObject({
      state: 'queued',
      upstreamTaskId: 'up_found',
      upstreamRequestId: 'rid-found',
      channelId: 'ch2',
      error: null,
    });
    expect(driver.lookups).toBe(1); // the other instance found it leased (or already moved)
    expect(f.logs.some((l) => l.includes('task_found') && l.includes('found upstream'))).toBe(true);
    expect(await ledger('task_found')).toHaveLength(0);

    driver.outcomes.set('up_found', {
      state: 'succeeded',
      upstreamStatus: 'SUCCEEDED',
      reported: { outputSeconds: 4, resolution: 720 },
    });
    for (let i = 0; i < 3; i++) await Promise.all([b.tick(), c.tick(), b.pollNow(adopted!), c.pollNow(adopted!)]);
    expect((await b.repo.get('task_found'))?.state).toBe('succeeded');
    const rows = await ledger('task_found');
    expect(rows.map((r) => [r.idempotency_key, Number(r.amount)])).toEqual([['task_found:success', 4 * 600_000]]);
    expect((await hold('task_found'))?.state).toBe('settled');
    expect(await f.tokenRow()).toEqual({ spent: 4 * 600_000, held: 0 });
    expect(crashed.submits()).toBe(1);
  });

  it('certainly absent → looked for again a lease after the deadline, then failed uncharged with the hold released and a warn line naming task and channel', async () => {
    const e = engine();
    await crashedMidSubmit(e, 'task_absent', LEASE + 200); // deadline passed, but a creation could still land
    expect(await e.tick()).toBe(1);
    let t = await e.repo.get('task_absent');
    expect(t?.state).toBe('submitting');
    expect(t!.nextPollAt).toBe(t!.createdAt + 2 * LEASE);
    expect((await hold('task_absent'))?.state).toBe('held');
    expect(await e.tick()).toBe(0); // not due before then

    await f.store.db
      .updateTable('tasks')
      .set({ created_at: Date.now() - 3 * LEASE, next_poll_at: 0 })
      .where('id', '=', 'task_absent')
      .execute();
    expect(await e.tick()).toBe(1);
    t = await e.repo.get('task_absent');
    expect(t?.state).toBe('failed');
    expect(t?.error).toMatchObject({
      code: 'task_submit_lost',
      message: 'The task never reached the upstream; it was not charged',
    });
    expect(driver.lookups).toBe(2);
    expect((await hold('task_absent'))?.state).toBe('released');
    expect(await ledger('task_absent')).toHaveLength(0);
    expect(await f.tokenRow()).toEqual({ spent: 0, held: 0 });
    const line = f.logs.find((l) => l.includes('task_absent') && l.includes('lost submit'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ level: 40, task_id: 'task_absent', channel_id: 'ch1' });
  });

  it('the upstream cannot tell → backs off with the hold kept; past the maximum age → failed uncharged', async () => {
    const e = engine();
    await crashedMidSubmit(e, 'task_unsure', 3 * LEASE);
    driver.upstream.set('task_unsure', 'error');
    expect(await e.tick()).toBe(1);
    const t = await e.repo.get('task_unsure');
    expect(t).toMatchObject({ state: 'submitting', pollAttempts: 1 });
    expect((await hold('task_unsure'))?.state).toBe('held');

    const old = engine({ maxAgeMs: 2 * LEASE });
    await f.store.db.updateTable('tasks').set({ next_poll_at: 0 }).where('id', '=', 'task_unsure').execute();
    expect(await old.tick()).toBe(1);
    expect((await old.repo.get('task_unsure'))?.error?.code).toBe('task_submit_lost');
    expect((await hold('task_unsure'))?.state).toBe('released');
    expect(await ledger('task_unsure')).toHaveLength(0);
  });

  it('a driver that cannot look tasks up: failed uncharged at once, logged for the operator', async () => {
    const e = engine();
    await crashedMidSubmit(e, 'task_blind', 3 * LEASE);
    e.registerDriver(KIND, new ScriptedDriver());
    expect(await e.tick()).toBe(1);
    const t = await e.repo.get('task_blind');
    expect(t?.state).toBe('failed');
    expect(t?.error?.message).toContain('cannot be asked');
    expect((await hold('task_blind'))?.state).toBe('released');
    expect(f.logs.some((l) => l.includes('task_blind') && l.includes('check the upstream account'))).toBe(true);
  });

  it('the creating instance finishing late never undoes an adoption: its answer agrees quietly, its failure deletes and releases nothing', async () => {
    const a = engine();
    const late = await crashedMidSubmit(a, 'task_late_ok', 3 * LEASE);
    const failing = await crashedMidSubmit(a, 'task_late_err', 3 * LEASE);
    driver.upstream.set('task_late_ok', { upstreamTaskId: 'up_late_ok', state: 'queued' });
    driver.upstream.set('task_late_err', { upstreamTaskId: 'up_late_err', state: 'queued' });
    const b = engine();
    expect(await b.tick()).toBe(2);

    late.settle().ok({ upstreamTaskId: 'up_late_ok', upstreamRequestId: 'rid-late' });
    expect((await late.created).state).toBe('queued');
    expect(f.logs.some((l) => l.includes('task_late_ok') && l.includes('after its deadline'))).toBe(false);

    failing.settle().fail(new GatewayError('upstream_timeout', 'the answer never came'));
    await expect(failing.created).rejects.toThrow('the answer never came');
    expect((await b.repo.get('task_late_err'))?.state).toBe('queued');
    expect((await hold('task_late_err'))?.state).toBe('held');
    driver.outcomes.set('up_late_err', { state: 'succeeded', upstreamStatus: 'SUCCEEDED' });
    await b.pollNow((await b.repo.get('task_late_err'))!);
    expect(Number((await ledger('task_late_err'))[0]!.amount)).toBe(5 * 600_000);
  });
});
