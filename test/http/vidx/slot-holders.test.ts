// Issue 58 item 3, as the attack ran it: tasks waiting in the gateway for a Kling slot (never sent upstream) when
// their account and token are revoked must not be sent nor charged later: they end failed, with a clear reason, and
// their holds are released. Through the real HTTP server, against the simulator (one slot), on the test run's store.
// The poller retries the first waiting task's creation all along, so a revocation often lands while that retry is out
// (on SQLite most of all: the revocation's write waits for the move's, then commits while its creation is sent); the
// slot freeing right after the answer must not let that creation through.
import { describe, expect, it } from 'vitest';
import { klingState } from '../../../simulator/kling/index.ts';
import { useHarness } from '../../support/harness.ts';
import { call, type TaskData, vidxHarness } from '../../support/vidx.ts';
import { until } from '../../support/wait.ts';

const T2V = '/vidx/v1/videos/text2video';

describe('tasks waiting for a slot when their holder is revoked', () => {
  const t = useHarness(vidxHarness({ sim: { taskDurationMs: 600_000, klingTaskSlots: 1 } }));
  const json = async <T>(r: Response): Promise<T> => {
    expect(r.status).toBeLessThan(300);
    return (await r.json()) as T;
  };

  it('revoking the account and the token: the two waiting tasks are never sent, end failed uncharged, holds released', async () => {
    const account = (
      await json<{ id: string }>(await t.h.admin('/admin/accounts', { method: 'POST', json: { name: 'revoked' } }))
    ).id;
    const tok = await json<{ id: string; token: string }>(
      await t.h.admin('/admin/tokens', {
        method: 'POST',
        json: { name: 'revoked', account_id: account, quota: 1_000_000_000 },
      }),
    );
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call<TaskData>(t.h, tok.token, 'POST', T2V, { model_name: 'vidx-v2-6', prompt: `revoked ${i}` });
      expect(r.body.code).toBe(0);
      ids.push(r.body.data.task_id);
    }
    const rowOf = (id: string) =>
      t.h.store.db.selectFrom('tasks').select(['state', 'error']).where('id', '=', id).executeTakeFirstOrThrow();
    const [running, ...waiting] = ids;
    for (const id of waiting) expect((await rowOf(id)).state).toBe('waiting');
    expect((await t.h.admin(`/admin/accounts/${account}`, { method: 'DELETE' })).status).toBe(200);
    expect((await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'DELETE' })).status).toBe(200);
    // The slot frees: the running task ends upstream.
    for (const task of klingState(t.h.sim.ctx).tasks.values())
      if (task.externalTaskId === running) task.finishAt = Date.now();
    await until(
      async () => (await Promise.all(waiting.map(rowOf))).every((r) => r.state === 'failed'),
      'the waiting tasks end',
    );
    for (const id of waiting) {
      const r = await rowOf(id);
      expect(JSON.parse(r.error!)).toMatchObject({
        code: 'token_revoked',
        message: expect.stringMatching(/revoked while the task waited .*not charged/),
      });
      await until(
        async () =>
          (await t.h.store.db.selectFrom('holds').select('state').where('hold_key', '=', id).executeTakeFirst())
            ?.state === 'released',
        'its hold released',
      );
      expect(await t.h.store.db.selectFrom('ledger').select('id').where('task_id', '=', id).execute()).toEqual([]);
    }
    const sent = [...klingState(t.h.sim.ctx).tasks.values()].map((x) => x.externalTaskId);
    for (const id of waiting) expect(sent).not.toContain(id);
    const held = await t.h.store.db
      .selectFrom('accounts')
      .select('held')
      .where('id', '=', account)
      .executeTakeFirstOrThrow();
    const holdOfRunning = await t.h.store.db
      .selectFrom('holds')
      .select(['amount', 'state'])
      .where('hold_key', '=', running!)
      .executeTakeFirstOrThrow();
    expect(Number(held.held)).toBe(holdOfRunning.state === 'held' ? Number(holdOfRunning.amount) : 0);
  }, 120_000);
});
