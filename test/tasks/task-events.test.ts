// Each task's timeline (task_events) over a real store (SQLite, or PostgreSQL with TOLLWAY_TEST_DIALECT=postgres) with
// a scripted driver: every state change once and in order, the charge with its ledger line, the hold released on
// failure and cancel, nothing for polls that find nothing changed, and an event never without its change (or the
// change without its event) when the event cannot be written.
import { sql } from 'kysely';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import type { TaskEngine } from '../../src/tasks/engine.ts';
import { applyOutcome } from '../../src/tasks/settle.ts';
import type { SubmitOutcome, TaskRecord } from '../../src/tasks/types.ts';
import { engineFixture, ScriptedDriver, type EngineFixture } from '../support/task-engine.ts';

let f: EngineFixture;
beforeEach(async () => {
  f = await engineFixture();
});
afterEach(async () => f?.cleanup());

const HOLD = 5 * 600_000;
const ledger = (taskId: string) => f.store.db.selectFrom('ledger').selectAll().where('task_id', '=', taskId).execute();
/** The timeline as [kind, from, to] rows, oldest first. */
const steps = async (e: TaskEngine, id: string) => (await e.repo.events(id)).map((v) => [v.kind, v.from, v.to]);
const eventRows = (id: string) => f.store.db.selectFrom('task_events').select('id').where('task_id', '=', id).execute();

/** A task created as the upstream answers (queued, PENDING), then polled through `outcomes` one per poll. */
async function created(e: TaskEngine): Promise<TaskRecord> {
  return e.create(
    f.input(e, {
      submit: async () => ({
        upstreamTaskId: `up_${Math.random().toString(36).slice(2)}`,
        upstreamStatus: 'PENDING',
        state: 'queued',
      }),
    }),
  );
}

describe('task timeline', () => {
  it('queued → running → succeeded: exactly those events in order, one charge event naming its ledger line; polls that change nothing add nothing', async () => {
    const e = f.engine();
    const t = await created(e);
    const poll = async (o: Parameters<typeof f.driver.outcomes.set>[1]) => {
      f.driver.outcomes.set(t.upstreamTaskId!, o);
      return e.pollNow((await e.repo.get(t.id))!);
    };
    await poll({ state: 'queued', upstreamStatus: 'PENDING' }); // what it was already
    expect(await steps(e, t.id)).toEqual([
      ['created', null, 'submitting'],
      ['submitted', 'submitting', 'queued'],
    ]);
    await poll({ state: 'in_progress', upstreamStatus: 'RUNNING', progress: 10 });
    // Progress alone is written but is not an event; the same answer again writes nothing at all.
    await poll({ state: 'in_progress', upstreamStatus: 'RUNNING', progress: 60 });
    await poll({ state: 'in_progress', upstreamStatus: 'RUNNING', progress: 60 });
    const unchanged = (await e.repo.get(t.id))!;
    expect(unchanged.progress).toBe(60);
    await new Promise((r) => setTimeout(r, 5));
    for (let i = 0; i < 5; i++) await poll({ state: 'in_progress', upstreamStatus: 'RUNNING', progress: 60 });
    expect((await e.repo.get(t.id))!.updatedAt).toBe(unchanged.updatedAt);
    expect(await eventRows(t.id)).toHaveLength(3);

    await poll({
      state: 'succeeded',
      upstreamStatus: 'SUCCEEDED',
      reported: { outputSeconds: 4, resolution: 720 },
      result: { url: 'https://r/x.mp4' },
    });
    // Polls and GETs after the end add nothing.
    await e.pollNow((await e.repo.get(t.id))!);
    await e.getFresh(t.id, f.tokenId);
    const events = await e.repo.events(t.id);
    expect(events.map((v) => [v.kind, v.from, v.to, v.upstreamStatus])).toEqual([
      ['created', null, 'submitting', null],
      ['submitted', 'submitting', 'queued', 'PENDING'],
      ['status', 'queued', 'in_progress', 'RUNNING'],
      ['succeeded', 'in_progress', 'succeeded', 'SUCCEEDED'],
      ['charged', null, null, null],
    ]);
    expect(events[1]).toMatchObject({ amount: HOLD, detail: `upstream task ${t.upstreamTaskId}` });
    expect(events[2]!.detail).toBe('upstream PENDING → RUNNING');
    const [line] = await ledger(t.id);
    expect(events[4]).toMatchObject({ amount: 4 * 600_000, ledgerId: Number(line!.id) });
    expect(events.filter((v) => v.kind === 'hold_released')).toEqual([]);
    // Oldest first, each at or after the one before.
    expect(events.map((v) => v.at)).toEqual([...events.map((v) => v.at)].sort((a, b) => a - b));
  });

  it('a change of the upstream status within one gateway state is an event; two polls applying the same answer record it once', async () => {
    const e = f.engine();
    const t = await created(e);
    const deps = {
      repo: e.repo,
      meter: () => f.meter,
      chargedUsage: f.chargedUsage,
      logger: pino({ level: 'silent' }),
      now: Date.now,
    };
    // Both read the task while it was PENDING (a lease that ran out mid-poll): only the first write applies.
    const out = { state: 'queued', upstreamStatus: 'SUBMITTED' } as const;
    await Promise.all([applyOutcome(deps, { ...t }, out), applyOutcome(deps, { ...t }, out)]);
    await applyOutcome(deps, { ...t }, out);
    expect(await steps(e, t.id)).toEqual([
      ['created', null, 'submitting'],
      ['submitted', 'submitting', 'queued'],
      ['status', 'queued', 'queued'],
    ]);
    expect((await e.repo.events(t.id))[2]!.detail).toBe('upstream PENDING → SUBMITTED');
    expect((await e.repo.get(t.id))!.upstreamStatus).toBe('SUBMITTED');
  });

  it('a failing task: failed with its error, then the hold released with its amount; no charge', async () => {
    const e = f.engine();
    const t = await created(e);
    f.driver.outcomes.set(t.upstreamTaskId!, {
      state: 'failed',
      upstreamStatus: 'FAILED',
      error: { code: 'InvalidParameter', message: 'bad prompt' },
    });
    await e.pollNow(t);
    await e.pollNow((await e.repo.get(t.id))!);
    const events = await e.repo.events(t.id);
    expect(events.map((v) => [v.kind, v.from, v.to])).toEqual([
      ['created', null, 'submitting'],
      ['submitted', 'submitting', 'queued'],
      ['failed', 'queued', 'failed'],
      ['hold_released', null, null],
    ]);
    expect(events[2]!.detail).toBe('InvalidParameter: bad prompt');
    expect(events[3]!.amount).toBe(HOLD);
    expect(await ledger(t.id)).toHaveLength(0);
  });

  it('an operator cancel: cancelled and the hold released; a second cancel adds nothing', async () => {
    const e = f.engine();
    const t = await created(e);
    expect((await e.cancel(t.id))!.outcome).toBe('cancelled');
    expect((await e.cancel(t.id))!.outcome).toBe('not_open');
    const events = await e.repo.events(t.id);
    expect(events.map((v) => [v.kind, v.from, v.to])).toEqual([
      ['created', null, 'submitting'],
      ['submitted', 'submitting', 'queued'],
      ['cancelled', 'queued', 'cancelled'],
      ['hold_released', null, null],
    ]);
    expect(events[2]!.detail).toMatch(/^task_cancelled: /);
    expect(events[3]!.amount).toBe(HOLD);
  });

  it('a creation the upstream refuses leaves neither the task nor its events', async () => {
    const e = f.engine();
    const input = f.input(e, {
      id: 'task_refused',
      submit: async () => {
        throw new GatewayError('upstream_invalid_request', 'nope');
      },
    });
    await expect(e.create(input)).rejects.toThrow('nope');
    expect(await e.repo.get('task_refused')).toBeNull();
    expect(await eventRows('task_refused')).toHaveLength(0);
  });

  it('a lost creation found upstream: recovered, with the upstream task id', async () => {
    class Recovering extends ScriptedDriver {
      async recoverSubmit(): Promise<SubmitOutcome | null> {
        return { upstreamTaskId: 'up_lost', upstreamStatus: 'submitted', state: 'queued' };
      }
    }
    const e = f.engine({ leaseMs: 1000 });
    e.registerDriver('test-recoverable', new Recovering());
    let answered!: (o: SubmitOutcome) => void;
    const pending = e.create(
      f.input(e, {
        id: 'task_lost',
        kind: 'test-recoverable',
        submit: () => new Promise<SubmitOutcome>((ok) => (answered = ok)),
      }),
    );
    for (let i = 0; i < 100 && !(await e.repo.get('task_lost')); i++) await new Promise((r) => setTimeout(r, 10));
    const at = Date.now() - 3000;
    await f.store.db
      .updateTable('tasks')
      .set({ created_at: at, lease_until: at + 1000, next_poll_at: at + 1000 })
      .where('id', '=', 'task_lost')
      .execute();
    expect(await e.tick()).toBe(1);
    answered({ upstreamTaskId: 'up_lost' }); // the late answer of the first instance does not move it again
    await pending;
    const events = await e.repo.events('task_lost');
    expect(events.map((v) => [v.kind, v.from, v.to, v.upstreamStatus])).toEqual([
      ['created', null, 'submitting', null],
      ['recovered', 'submitting', 'queued', 'submitted'],
    ]);
    expect(events[1]!.detail).toContain('up_lost');
  });

  it('when the event cannot be written the change is not made either; once it can, the task finishes with its events and one charge', async () => {
    const e = f.engine();
    const t = await created(e);
    f.driver.outcomes.set(t.upstreamTaskId!, { state: 'in_progress', upstreamStatus: 'RUNNING', progress: 30 });
    await sql`ALTER TABLE task_events RENAME TO task_events_away`.execute(f.store.db);
    await expect(e.pollNow(t)).rejects.toThrow();
    expect(await e.repo.get(t.id)).toMatchObject({ state: 'queued', upstreamStatus: 'PENDING', progress: null });
    await sql`ALTER TABLE task_events_away RENAME TO task_events`.execute(f.store.db);
    await e.pollNow((await e.repo.get(t.id))!);
    f.driver.outcomes.set(t.upstreamTaskId!, {
      state: 'succeeded',
      upstreamStatus: 'SUCCEEDED',
      reported: { outputSeconds: 3, resolution: 720 },
    });
    await e.pollNow((await e.repo.get(t.id))!);
    expect((await e.repo.events(t.id)).map((v) => v.kind)).toEqual([
      'created',
      'submitted',
      'status',
      'succeeded',
      'charged',
    ]);
    expect(await ledger(t.id)).toHaveLength(1);
  });
});
