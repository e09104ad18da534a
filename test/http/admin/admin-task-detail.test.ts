// GET /admin/tasks/{id} against the simulator, on the suite's dialect: a /v1 video and a family A task that finish
// show their timelines (created, submitted, the upstream status changes the poller saw, succeeded, the charge naming
// its ledger line) beside the ledger lines; an unknown id is 404 in the admin (family B) shape.
import { describe, expect, it } from 'vitest';
import { expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';
import { createVideo, waitTerminal } from '../../support/videos.ts';
import { call, type TaskData, vidxHarness, waitStatus } from '../../support/vidx.ts';

const t = useHarness(vidxHarness());

interface Event {
  id: number;
  at: number;
  kind: string;
  from: string | null;
  to: string | null;
  upstream_status: string | null;
  amount: number | null;
  ledger_id: number | null;
  detail: string | null;
}
interface Detail {
  id: string;
  state: string;
  upstream_task_id: string;
  hold_amount: number;
  events: Event[];
  ledger: Array<{ id: number; amount: number; idempotency_key: string }>;
  charged: number;
}

async function detail(id: string): Promise<Detail> {
  const r = await t.h.admin(`/admin/tasks/${id}`);
  expect(r.status).toBe(200);
  return (await r.json()) as Detail;
}

/** The shape every finished task's timeline has: created, submitted, status changes only, succeeded, charged. */
/** `slot`: a family A task, counted in its account's parallel-task queue, takes a free slot (→ submitting) first. */
function expectSucceededTimeline(d: Detail, slot = false): void {
  const kinds = d.events.map((e) => e.kind);
  if (slot) {
    expect(kinds.slice(0, 2)).toEqual(['created', 'slot']);
    expect(d.events.slice(0, 2).map((e) => [e.from, e.to])).toEqual([
      [null, 'waiting'],
      ['waiting', 'submitting'],
    ]);
    d = { ...d, events: d.events.slice(1) };
    kinds.shift();
  }
  expect(kinds.slice(0, 2)).toEqual([slot ? 'slot' : 'created', 'submitted']);
  expect(kinds.slice(-2)).toEqual(['succeeded', 'charged']);
  expect(new Set(kinds.slice(2, -2))).toEqual(new Set(kinds.length > 4 ? ['status'] : []));
  expect(d.events[1]).toMatchObject({
    from: 'submitting',
    detail: `upstream task ${d.upstream_task_id}`,
    amount: d.hold_amount,
  });
  // Each state event starts where the one before it ended, and no upstream status is recorded twice in a row.
  const states = d.events.filter((e) => e.kind !== 'charged');
  for (let i = 1; i < states.length; i++) {
    expect(states[i]!.from).toBe(states[i - 1]!.to);
    expect(states[i]!.upstream_status).not.toBe(states[i - 1]!.upstream_status);
  }
  expect(d.ledger).toHaveLength(1);
  const charge = d.events[d.events.length - 1]!;
  expect(charge).toMatchObject({ amount: d.ledger[0]!.amount, ledger_id: d.ledger[0]!.id });
  expect(d.charged).toBe(d.ledger[0]!.amount);
  expect(d.charged).toBeGreaterThan(0);
}

describe('GET /admin/tasks/{id}', () => {
  it('a /v1 video: its timeline with the charge and ledger line', async () => {
    const tok = await t.h.token({ name: 'timeline-v1' });
    const created = await createVideo(t.h, tok.secret, {
      model: 'wnx2.7-t2v',
      prompt: 'a timeline',
      seconds: '4',
      size: '1280x720',
    });
    expect(created.status).toBe(200);
    const id = String(created.json.id);
    expect((await waitTerminal(t.h, tok.secret, id)).status).toBe('completed');
    const d = await detail(id);
    expect(d).toMatchObject({ id, state: 'succeeded' });
    expectSucceededTimeline(d);
    expect(d.ledger[0]!.idempotency_key).toBe(`${id}:success`);
  });

  it('a family A task: the same timeline', async () => {
    const tok = await t.h.token({ name: 'timeline-vidx' });
    const r = await call<TaskData>(t.h, tok.secret, 'POST', '/vidx/v1/videos/text2video', {
      prompt: 'a family A timeline',
    });
    expect(r.body.code).toBe(0);
    const id = r.body.data.task_id;
    await waitStatus(t.h, tok.secret, `/vidx/v1/videos/text2video/${id}`, 'succeed');
    const d = await detail(id);
    expect(d.state).toBe('succeeded');
    expectSucceededTimeline(d, true);
  });

  it('an unknown task is 404 task_not_found', async () => {
    await expectB(await t.h.admin('/admin/tasks/task_nope'), 404, 'task_not_found');
  });
});
