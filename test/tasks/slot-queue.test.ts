// Tasks waiting in the gateway for a parallel-task slot (src/tasks/slot-queue.ts), on the store of the test run: a
// task the upstream refuses for the account's limit waits (hold kept, creation stored), is submitted first come first
// served when a slot frees, never while the operator's task_slots are in use, fails uncharged past the maximum wait,
// is released by a cancel, and two engines on one store never submit one task twice nor out of order.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import { SlotDriver, SlotUpstream } from '../support/slot-upstream.ts';
import type { TaskEngine } from '../../src/tasks/engine.ts';
import type { CreateTaskInput, TaskRecord } from '../../src/tasks/types.ts';
import { engineFixture, type EngineFixture } from '../support/task-engine.ts';

let f: EngineFixture;
let up: SlotUpstream;
let driver: SlotDriver;
let seq = 0;

beforeEach(async () => {
  f = await engineFixture();
  up = new SlotUpstream(1);
  driver = new SlotDriver(up);
});
afterEach(async () => f.cleanup());

function engine(opts: Parameters<EngineFixture['engine']>[0] = {}): TaskEngine {
  const e = f.engine(opts);
  e.registerDriver('test-video', driver);
  return e;
}

const QUEUE = 'kling:acct|kling-v2-6';

function create(e: TaskEngine, over: Partial<CreateTaskInput> = {}): Promise<TaskRecord> {
  const id = `task_slot${seq++}`;
  return e.create(
    f.input(e, {
      id,
      slot: { queue: QUEUE, stored: { path: 'text2video', body: { prompt: `for ${id}` } } },
      submit: (taskId) => up.accept(taskId),
      ...over,
    }),
  );
}

const row = (id: string) =>
  f.store.db
    .selectFrom('tasks')
    .select(['state', 'submit_body', 'slot_queue', 'next_poll_at', 'hold_amount', 'error'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
const dueOnly = (...ids: string[]) =>
  f.store.db.updateTable('tasks').set({ next_poll_at: 0 }).where('id', 'in', ids).execute();
const dueAll = () =>
  f.store.db
    .updateTable('tasks')
    .set({ next_poll_at: 0 })
    .where('state', 'in', ['waiting', 'queued', 'in_progress'])
    .execute();
const holdState = async (id: string) =>
  (await f.store.db.selectFrom('holds').select('state').where('hold_key', '=', id).executeTakeFirst())?.state;

/** The upstream finished the task: its slot frees there, and the next poll of it settles it. */
function finish(id: string): void {
  up.open.delete(id);
  driver.outcomes.set(`up_${id}`, { state: 'succeeded', upstreamStatus: 'succeed' });
}

describe('tasks waiting for a parallel-task slot', () => {
  it('a refused creation waits with its hold and stored creation; the queue is served first come first served as slots free', async () => {
    // Long poll schedules: a task is tried only when made due (by the test, or by the queue when a slot frees).
    const e = engine({ pollBaseMs: 10_000, pollMaxMs: 60_000 });
    const a = await create(e);
    const b = await create(e);
    const c = await create(e);
    expect([a.state, b.state, c.state]).toEqual(['queued', 'waiting', 'waiting']);
    // B was refused upstream; C, behind it, was not even sent.
    expect(up.attempts).toEqual([a.id, b.id]);
    for (const t of [b, c]) {
      expect((await row(t.id)).submit_body).not.toBeNull();
      expect(await holdState(t.id)).toBe('held');
      expect(t.holdAmount).toBeGreaterThan(0);
    }
    // Nothing free: the head is tried (refused again), C is not.
    await dueOnly(b.id, c.id);
    await e.tick();
    expect(up.attempts).toEqual([a.id, b.id, b.id]);
    expect((await row(b.id)).state).toBe('waiting');
    // A ends: its settle makes the queue's head (B) due at once, and the next round submits B — not C.
    finish(a.id);
    await dueOnly(a.id);
    await e.tick();
    expect((await row(a.id)).state).toBe('succeeded');
    expect(Number((await row(b.id)).next_poll_at)).toBeLessThanOrEqual(Date.now());
    expect(Number((await row(c.id)).next_poll_at)).toBeGreaterThan(Date.now());
    await e.tick();
    expect(up.accepted).toEqual([a.id, b.id]);
    const bRow = await row(b.id);
    expect(bRow.state).toBe('queued');
    expect(bRow.submit_body).toBeNull();
    // B's submit made C the head and due: tried at once, refused (B holds the slot).
    await e.tick();
    expect(up.attempts.at(-1)).toBe(c.id);
    finish(b.id);
    await dueOnly(b.id);
    await e.tick();
    await e.tick();
    expect(up.accepted).toEqual([a.id, b.id, c.id]);
    finish(c.id);
    await dueOnly(c.id);
    await e.tick();
    for (const t of [a, b, c]) {
      expect((await row(t.id)).state).toBe('succeeded');
      expect(await holdState(t.id)).toBe('settled');
    }
    const events = (await e.repo.events(b.id)).map((ev) => ev.kind);
    // Refused at creation and once more by the poller, then submitted: each try took the queue's slot (→ submitting).
    expect(events.slice(0, 7)).toEqual(['created', 'slot', 'waiting', 'slot', 'waiting', 'slot', 'submitted']);
  });

  it('a new creation never jumps the queue: behind a waiting task it waits, even when a slot is free', async () => {
    const e = engine();
    const a = await create(e);
    const b = await create(e);
    expect(b.state).toBe('waiting');
    finish(a.id); // free upstream, but the gateway has not seen A end
    up.open.clear();
    const c = await create(e);
    expect(c.state).toBe('waiting');
    expect(up.attempts).toEqual([a.id, b.id]);
  });

  it("the operator's task_slots: never a second creation while one of the queue's tasks is open", async () => {
    f.slotLimit = 1;
    up.slots = 100;
    const e = engine();
    const a = await create(e);
    const b = await create(e);
    expect([a.state, b.state]).toEqual(['queued', 'waiting']);
    const parked = await e.repo.events(b.id);
    expect(parked.find((ev) => ev.kind === 'waiting')?.detail).toMatch(/task_slots \(1\)/);
    await dueAll();
    await e.tick();
    expect(up.attempts).toEqual([a.id]);
    finish(a.id);
    await dueAll();
    await e.tick();
    await e.tick();
    expect(up.attempts).toEqual([a.id, b.id]);
    expect(['queued', 'in_progress']).toContain((await row(b.id)).state);
  });

  it('past the maximum wait a waiting task fails uncharged with a clear error, and is never sent', async () => {
    up.slots = 0;
    const e = engine({ slotWaitMs: 50 });
    const a = await create(e);
    expect(a.state).toBe('waiting');
    await new Promise((r) => setTimeout(r, 80));
    await dueAll();
    await e.tick();
    const r = await row(a.id);
    expect(r.state).toBe('failed');
    expect(JSON.parse(r.error!)).toMatchObject({
      code: 'task_slot_wait_timeout',
      message: expect.stringMatching(/maximum wait.*not charged/),
    });
    expect(r.submit_body).toBeNull();
    expect(await holdState(a.id)).toBe('released');
    expect((await f.tokenRow()).held).toBe(0);
    expect((await e.repo.events(a.id)).map((ev) => ev.kind)).toEqual([
      'created',
      'slot',
      'waiting',
      'failed',
      'hold_released',
    ]);
    expect(up.attempts).toEqual([a.id]);
  });

  it("an operator's cancel of a waiting task releases it, and it is never submitted", async () => {
    const e = engine();
    const a = await create(e);
    const b = await create(e);
    const r = await e.cancel(b.id);
    expect(r?.outcome).toBe('cancelled');
    expect(await holdState(b.id)).toBe('released');
    finish(a.id);
    for (let i = 0; i < 3; i++) {
      await dueAll();
      await e.tick();
    }
    expect(up.accepted).toEqual([a.id]);
    expect((await row(b.id)).state).toBe('cancelled');
  });

  it("a cancel while the waiting task's submit try is in flight waits for the try: refused, the task is released and never sent again", async () => {
    const e = engine();
    await create(e);
    const b = await create(e);
    let open!: () => void;
    up.gate = new Promise((r) => (open = r));
    const sent = up.nextAttempt();
    await dueAll();
    const round = e.tick();
    // The upstream holds B's try: its row is submitting until the test lets the refusal through.
    expect(await sent).toBe(b.id);
    expect((await row(b.id)).state).toBe('submitting');
    let settled = false;
    const cancel = e.cancel(b.id).finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(settled).toBe(false);
    open();
    const r = await cancel;
    await round;
    expect(r?.outcome).toBe('cancelled');
    expect(await holdState(b.id)).toBe('released');
    up.open.clear();
    for (let i = 0; i < 2; i++) {
      await dueAll();
      await e.tick();
    }
    expect(up.accepted).not.toContain(b.id);
  });

  it('an upstream refusal that is not about its limits fails a waiting task uncharged (the client already has its id)', async () => {
    const e = engine();
    const a = await create(e);
    const b = await create(e);
    driver.submitStored = async () => {
      throw new GatewayError('upstream_content_filtered', 'Upstream content policy rejected the request');
    };
    finish(a.id);
    for (let i = 0; i < 2; i++) {
      await dueAll();
      await e.tick();
    }
    const r = await row(b.id);
    expect(r.state).toBe('failed');
    expect(JSON.parse(r.error!).code).toBe('upstream_content_filtered');
    expect(await holdState(b.id)).toBe('released');
  });

  it('two engines on one store (two instances) submit each task once, in creation order', async () => {
    up.slots = 2;
    up.delayMs = 5;
    const e1 = engine();
    const e2 = engine();
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await create(i % 2 ? e2 : e1)).id);
    for (let round = 0; round < 60 && up.accepted.length < ids.length; round++) {
      for (const id of [...up.open]) finish(id);
      await dueAll();
      await Promise.all([e1.tick(), e2.tick(), e1.tick(), e2.tick()]);
    }
    expect(up.accepted).toEqual(ids);
    for (const id of ids) expect(['queued', 'succeeded']).toContain((await row(id)).state);
  });
});
