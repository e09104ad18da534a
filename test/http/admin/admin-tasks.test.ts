// GET /admin/tasks and POST /admin/tasks/{id}/cancel, against the simulator (tasks that stay unfinished for a
// minute): the list's filters and cursor, and a cancel that charges nothing, gives the hold back, writes an audit
// line and asks the upstream to stop — on the suite's dialect.
import { beforeAll, describe, expect, it } from 'vitest';
import { expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';
import { holdOfTask, ledgerOfTask, tokenRow } from '../../support/store-rows.ts';
import { createVideo, FAST_TASK_ENV } from '../../support/videos.ts';

const t = useHarness({ env: FAST_TASK_ENV, sim: { taskDurationMs: 60_000 } });
let tok: { id: string; secret: string };
const ids: string[] = [];
beforeAll(async () => {
  tok = await t.h.token({ name: 'admin-tasks', quota: 1_000_000_000 });
  for (let i = 0; i < 3; i++) {
    const r = await createVideo(t.h, tok.secret, {
      model: 'wnx2.7-t2v',
      prompt: `stuck ${i}`,
      seconds: '4',
      size: '1280x720',
    });
    expect(r.status).toBe(200);
    ids.push(r.json.id as string);
  }
});

type View = {
  id: string;
  state: string;
  token_id: string;
  model: string;
  kind: string;
  channel_id: string;
  hold_amount: number;
  error: { code: string } | null;
};
async function list(q: string): Promise<{ data: View[]; has_more: boolean; next_cursor?: string }> {
  const r = await t.h.admin(`/admin/tasks?${q}`);
  expect(r.status, q).toBe(200);
  return (await r.json()) as { data: View[]; has_more: boolean; next_cursor?: string };
}

describe('GET /admin/tasks', () => {
  it("lists every token's tasks newest first; filters narrow; the cursor pages without repeats", async () => {
    const mine = await list(`token_id=${tok.id}`);
    expect(mine.data.map((v) => v.id)).toEqual([...ids].reverse());
    expect(mine.data[0]).toMatchObject({ token_id: tok.id, model: 'wnx2.7-t2v', kind: 'dashscope-video' });
    expect(mine.data[0]!.hold_amount).toBeGreaterThan(0);
    expect((await list(`token_id=${tok.id}&model=wnx2.7-t2v&kind=dashscope-video`)).data).toHaveLength(3);
    expect((await list(`token_id=${tok.id}&model=other`)).data).toHaveLength(0);
    expect((await list(`token_id=${tok.id}&state=succeeded`)).data).toHaveLength(0);
    expect((await list(`token_id=${tok.id}&until=1`)).data).toHaveLength(0);

    const first = await list(`token_id=${tok.id}&limit=2`);
    expect(first.has_more).toBe(true);
    const second = await list(`token_id=${tok.id}&limit=2&cursor=${first.next_cursor}`);
    expect(second.has_more).toBe(false);
    expect([...first.data, ...second.data].map((v) => v.id)).toEqual([...ids].reverse());
  });

  it('unknown parameters and bad values are 400 invalid_parameter', async () => {
    for (const q of ['status=queued', 'state=stuck', 'cursor=zz', 'limit=0'])
      await expectB(await t.h.admin(`/admin/tasks?${q}`), 400, 'invalid_parameter');
  });
});

describe('POST /admin/tasks/{id}/cancel', () => {
  it('cancels a stuck task: no charge, hold released, audit line, upstream asked to cancel; twice is 409', async () => {
    const id = ids[0]!;
    const heldBefore = Number((await tokenRow(t.h, tok.id)).held);
    const holdAmount = Number((await holdOfTask(t.h, id))!.amount);
    expect(heldBefore).toBeGreaterThanOrEqual(holdAmount);
    const upstreamId = (
      await t.h.store.db.selectFrom('tasks').select('upstream_task_id').where('id', '=', id).executeTakeFirstOrThrow()
    ).upstream_task_id!;

    const r = await t.h.admin(`/admin/tasks/${id}/cancel`, { method: 'POST' });
    expect(r.status).toBe(200);
    const view = (await r.json()) as View;
    expect(view).toMatchObject({ id, state: 'cancelled', error: { code: 'task_cancelled' } });

    expect(await ledgerOfTask(t.h, id)).toHaveLength(0);
    expect((await holdOfTask(t.h, id))!.state).toBe('released');
    const after = await tokenRow(t.h, tok.id);
    expect(Number(after.held)).toBe(heldBefore - holdAmount);
    expect(Number(after.spent)).toBe(0);

    const audit = (await (await t.h.admin('/admin/audit')).json()) as {
      data: Array<{ action: string; target: string; actor: string }>;
    };
    expect(audit.data).toContainEqual(expect.objectContaining({ action: 'task.cancel', target: id, actor: 'admin' }));

    // Best-effort upstream cancel (DashScope offers one): it reaches the simulator.
    for (let i = 0; i < 100 && !t.h.sim.requestsTo(`/api/v1/tasks/${upstreamId}/cancel`).length; i++)
      await new Promise((res) => setTimeout(res, 20));
    expect(t.h.sim.requestsTo(`/api/v1/tasks/${upstreamId}/cancel`)).toHaveLength(1);

    // The client sees it as cancelled/failed, and the poller never brings it back.
    const v = await t.h.fetch(`/v1/videos/${id}`, { token: tok.secret });
    expect(['failed', 'cancelled']).toContain(((await v.json()) as { status: string }).status);

    await expectB(await t.h.admin(`/admin/tasks/${id}/cancel`, { method: 'POST' }), 409, 'conflict');
  });

  it('an unknown task is 404; a client token is refused', async () => {
    await expectB(await t.h.admin('/admin/tasks/task_nope/cancel', { method: 'POST' }), 404, 'task_not_found');
    const r = await t.h.fetch(`/admin/tasks/${ids[1]}/cancel`, { method: 'POST', token: tok.secret });
    expect(r.status).toBe(403);
    expect((await list(`token_id=${tok.id}&state=cancelled`)).data.map((x) => x.id)).toEqual([ids[0]]);
  });
});
