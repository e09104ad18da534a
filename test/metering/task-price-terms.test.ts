// A task is charged at the prices fixed when it was created, and never past its hold and what its token's and
// account's quotas have left: the attack of a price change while a family A task runs (a group's multiplier going
// ×1 → ×1000, or the model's list price rising), through a real gateway on the store TOLLWAY_TEST_DIALECT names.
import { describe, expect, it } from 'vitest';
import { klingState } from '../../simulator/kling/state.ts';
import { ADMIN_KEY, useHarness, type Harness } from '../support/harness.ts';
import { holdOfTask, ledgerOfTask, tokenRow } from '../support/store-rows.ts';
import { call, type TaskData, vidxHarness, waitStatus } from '../support/vidx.ts';

const T2V = '/vidx/v1/videos/text2video';
const STD = 140_000; // vidx-v1 std, per second: a 5 s task holds 700,000; the simulator reports 5.1 s
// The simulator's tasks run until the test ends them (finish), so the change always lands while the task runs.
const t = useHarness(vidxHarness({ sim: { taskDurationMs: 600_000 } }));

async function admin(h: Harness, method: string, path: string, json?: unknown): Promise<number> {
  const r = await h.fetch(path, { method, token: ADMIN_KEY, ...(json === undefined ? {} : { json }) });
  return r.status;
}

/** A token of `quota` in a new account of price group `group`. */
async function groupToken(
  h: Harness,
  group: string,
  quota: number,
  accountQuota: number | null = null,
): Promise<{ id: string; token: string; account: string }> {
  expect(await admin(h, 'PUT', `/admin/price-groups/${group}`, { multiplier: 1 })).toBe(201);
  const a = await h.fetch('/admin/accounts', {
    method: 'POST',
    token: ADMIN_KEY,
    json: { name: group, price_group: group, quota: accountQuota },
  });
  const account = ((await a.json()) as { id: string }).id;
  const r = await h.fetch('/admin/tokens', {
    method: 'POST',
    token: ADMIN_KEY,
    json: { name: group, account_id: account, quota },
  });
  expect(r.status).toBe(201);
  return { ...((await r.json()) as { id: string; token: string }), account };
}

async function created(h: Harness, token: string): Promise<string> {
  const c = await call<TaskData>(h, token, 'POST', T2V, {
    model_name: 'vidx-v1',
    prompt: 'a harbour',
    mode: 'std',
    duration: '5',
  });
  expect(c.status).toBe(200);
  const id = c.body.data.task_id;
  expect(Number((await holdOfTask(h, id))!.amount)).toBe(5 * STD);
  return id;
}

/** The simulator's task for our task id ends now. */
function finish(h: Harness, taskId: string): void {
  const task = [...klingState(h.sim.ctx).tasks.values()].find((x) => x.externalTaskId === taskId);
  if (!task) throw new Error(`no upstream task for ${taskId}`);
  task.finishAt = Date.now();
}

async function charged(h: Harness, token: string, taskId: string): Promise<number> {
  finish(h, taskId);
  await waitStatus(h, token, `${T2V}/${taskId}`, 'succeed');
  const ledger = await ledgerOfTask(h, taskId);
  expect(ledger).toHaveLength(1);
  return Number(ledger[0]!.amount);
}

describe('a task is charged at the prices of its creation', () => {
  it("a group's multiplier raised ×1000 while the task runs: charged at ×1 (5.1 s × 140,000), within the quota", async () => {
    const { h } = t;
    const tok = await groupToken(h, 'surge', 3_000_000);
    const id = await created(h, tok.token);
    expect(await admin(h, 'PUT', '/admin/price-groups/surge', { multiplier: 1000 })).toBe(200);
    expect(await charged(h, tok.token, id)).toBe(5.1 * STD);
    const row = await tokenRow(h, tok.id);
    expect([Number(row.spent), Number(row.held)]).toEqual([5.1 * STD, 0]);
    // A task created after the change is held at it.
    const c = await call<TaskData>(h, tok.token, 'POST', T2V, {
      model_name: 'vidx-v1',
      prompt: 'again',
      mode: 'std',
      duration: '5',
    });
    expect(c.body.code).not.toBe(0); // 700,000,000 does not fit the quota
  });

  it("the model's list price raised while the task runs: charged at the price of its creation", async () => {
    const { h } = t;
    const tok = await groupToken(h, 'list', 3_000_000);
    const id = await created(h, tok.token);
    expect(
      await admin(h, 'PUT', '/admin/prices/vidx-v1', {
        unit: 'video-mode-second',
        perSecond: { std: 1000 * STD, pro: 1000 * 490_000 },
      }),
    ).toBe(200);
    try {
      expect(await charged(h, tok.token, id)).toBe(5.1 * STD);
    } finally {
      await admin(h, 'DELETE', '/admin/prices/vidx-v1');
    }
  });

  it("a charge past the hold is cut to what the token's and account's quotas have left", async () => {
    const { h } = t;
    // Reported 5.1 s is 714,000: 14,000 more than the hold, and the account has only 5,000 more than it.
    const tok = await groupToken(h, 'tight', 3_000_000, 705_000);
    const id = await created(h, tok.token);
    expect(await charged(h, tok.token, id)).toBe(705_000);
    const acc = await h.store.db
      .selectFrom('accounts')
      .select(['spent', 'held'])
      .where('id', '=', tok.account)
      .executeTakeFirstOrThrow();
    expect([Number(acc.spent), Number(acc.held)]).toEqual([705_000, 0]);
  });

  it('a hold without stored prices (made before they were kept) is still charged no more than the hold and the quota allow', async () => {
    const { h } = t;
    const tok = await groupToken(h, 'old', 3_000_000);
    const id = await created(h, tok.token);
    await h.store.db.updateTable('holds').set({ price_terms: null }).where('hold_key', '=', id).execute();
    expect(await admin(h, 'PUT', '/admin/price-groups/old', { multiplier: 1000 })).toBe(200);
    expect(await charged(h, tok.token, id)).toBe(3_000_000);
    expect(Number((await tokenRow(h, tok.id)).spent)).toBe(3_000_000);
  });
});
