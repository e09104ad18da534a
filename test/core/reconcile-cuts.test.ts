// Reconciliation recognises a charge cut for want of room — at the balance bound (MAX_BALANCE), or a task's charge
// cut to what its account's quota had left — instead of reporting it as a mismatch; a charge changed by hand is
// still reported. Through a real gateway on the store TOLLWAY_TEST_DIALECT names.
import { describe, expect, it } from 'vitest';
import { isClean, reconcile } from '../../src/core/reconcile.ts';
import { MAX_BALANCE } from '../../src/metering/balance-bound.ts';
import { ReconcileRepo } from '../../src/store/repos/reconcile.ts';
import { ADMIN_KEY, postJson, useHarness } from '../support/harness.ts';
import { flushWriters, ledgerOfTask } from '../support/store-rows.ts';
import { call, type TaskData, vidxHarness, waitStatus } from '../support/vidx.ts';

const t = useHarness(vidxHarness());
const T2V = '/vidx/v1/videos/text2video';

describe('reconciliation of cut charges', () => {
  it('a chat cut at MAX_BALANCE and a task cut at its account quota are clean; a charge edited by hand is not', async () => {
    const { h } = t;
    const from = Date.now() - 1000;
    const bound = await h.token({ name: 'bound' });
    await h.store.db
      .updateTable('tokens')
      .set({ spent: MAX_BALANCE - 10 })
      .where('id', '=', bound.id)
      .execute();
    const c = await postJson(h, bound.secret, '/v1/chat/completions', {
      model: 'qwx3.7-plus',
      messages: [{ role: 'user', content: 'a long answer, cut' }],
    });
    expect(c.status).toBe(200);

    const acc = (await (
      await h.fetch('/admin/accounts', { method: 'POST', token: ADMIN_KEY, json: { name: 'q', quota: 705_000 } })
    ).json()) as { id: string };
    const tok = (await (
      await h.fetch('/admin/tokens', { method: 'POST', token: ADMIN_KEY, json: { name: 'q', account_id: acc.id } })
    ).json()) as {
      token: string;
    };
    const v = await call<TaskData>(h, tok.token, 'POST', T2V, {
      model_name: 'vidx-v1',
      prompt: 'a quay',
      mode: 'std',
      duration: '5',
    });
    expect(v.status).toBe(200);
    await waitStatus(h, tok.token, `${T2V}/${v.body.data.task_id}`, 'succeed');
    const [line] = await ledgerOfTask(h, v.body.data.task_id);
    expect(Number(line!.amount)).toBe(705_000); // 5.1 s × 140,000 = 714,000, cut to the account's quota

    await flushWriters(h);
    const repo = new ReconcileRepo(h.store.db);
    const to = Date.now() + 1000;
    const cut = await h.store.db
      .selectFrom('ledger')
      .select(['amount', 'quantities'])
      .where('request_id', '=', c.rid)
      .executeTakeFirstOrThrow();
    expect(Number(cut.amount)).toBe(10);
    expect(JSON.parse(cut.quantities)).toHaveProperty('clamped_from');
    const report = reconcile(await repo.read(from, to), from, to);
    expect(report.mismatches).toEqual([]);
    expect(isClean(report)).toBe(true);

    // Lines edited by hand are still mismatches: one charged more than its usage prices at, one cut with no cut
    // recorded.
    await h.store.db.updateTable('ledger').set({ amount: 1_000_000_000 }).where('request_id', '=', c.rid).execute();
    await h.store.db
      .updateTable('ledger')
      .set({ quantities: JSON.stringify({ ...JSON.parse(line!.quantities as string), clamped_from: undefined }) })
      .where('task_id', '=', v.body.data.task_id)
      .execute();
    const after = reconcile(await repo.read(from, to), from, to);
    expect(after.mismatches.map((m) => m.key).sort()).toEqual([`${v.body.data.task_id}:success`, c.rid].sort());
  });
});
