// The upstream's own bill beside ours: a Kling task keeps its final_unit_deduction; on a channel that states its cost
// per unit, each charge records that cost, bills show the margin, and `reconcile` flags a task whose deduction
// disagrees with our charge by more than the channel's price ratio allows — on the store TOLLWAY_TEST_DIALECT names.
import { describe, expect, it } from 'vitest';
import type { ReconcileReport } from '../../../src/core/reconcile.ts';
import { useHarness } from '../../support/harness.ts';
import { ledgerOfTask } from '../../support/store-rows.ts';
import { call, type TaskData, vidxHarness, waitStatus } from '../../support/vidx.ts';

const T2V = '/vidx/v1/videos/text2video';
const STD = 140_000; // vidx-v1 std, per second
// The simulated account deducts 0.2 units a std second: at 700,000 a unit, our list price is exactly its cost.
const PER_UNIT = 700_000;
const t = useHarness(vidxHarness());

async function klingChannel(): Promise<string> {
  const r = await t.h.admin('/admin/channels');
  const list = (await r.json()) as { data: Array<{ id: string; kind: string }> };
  return list.data.find((c) => c.kind === 'kling')!.id;
}

async function finished(prompt: string): Promise<string> {
  const c = await call<TaskData>(t.h, t.token, 'POST', T2V, { model_name: 'vidx-v1', prompt, duration: '5' });
  expect(c.body.code).toBe(0);
  const id = c.body.data.task_id;
  await waitStatus(t.h, t.token, `${T2V}/${id}`, 'succeed');
  return id;
}

describe("the upstream's deduction beside our charge", () => {
  it('records the cost, shows the margin in bills, and reconcile flags only the task the upstream billed otherwise', async () => {
    const from = Date.now() - 1;
    const channel = await klingChannel();
    const patched = await t.h.admin(`/admin/channels/${channel}`, {
      method: 'PATCH',
      json: { cost: { per_unit: PER_UNIT, price_ratio: 1, tolerance: 0.1 } },
    });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { cost: unknown }).cost).toEqual({
      per_unit: PER_UNIT,
      price_ratio: 1,
      tolerance: 0.1,
    });

    const fair = await finished('a quiet lake');
    // The simulated upstream deducts 9 units for this one (45 std seconds' worth).
    const odd = await finished('a stormy sea sim-fault:deduct:9');

    const [f] = await ledgerOfTask(t.h, fair);
    expect(Number(f!.amount)).toBe(Math.ceil(5.1 * STD));
    expect(JSON.parse(f!.quantities)).toMatchObject({ upstream_units: 1 });
    expect(Number(f!.upstream_cost)).toBe(PER_UNIT);
    const [o] = await ledgerOfTask(t.h, odd);
    expect(JSON.parse(o!.quantities)).toMatchObject({ upstream_units: 9 });
    expect(Number(o!.upstream_cost)).toBe(9 * PER_UNIT);

    const r = await t.h.admin(`/admin/reconcile?from=${from}&to=${Date.now() + 1}`);
    const report = (await r.json()) as ReconcileReport;
    expect(report.upstream_disagreements.map((d) => d.task_id)).toEqual([odd]);
    expect(report.upstream_disagreements[0]).toMatchObject({
      channel,
      upstream_units: 9,
      upstream_cost: 9 * PER_UNIT,
      list_amount: Math.ceil(5.1 * STD),
      price_ratio: 1,
    });

    // The bill of the token: upstream cost and margin of its costed charges.
    const bill = await t.h.admin(`/admin/bills?token_id=${t.tokenId}&period=month`);
    const line = ((await bill.json()) as { data: Array<Record<string, unknown>> }).data[0]!;
    const charged = Number(f!.amount) + Number(o!.amount);
    expect(line).toMatchObject({ costed_entries: 2, upstream_cost: 10 * PER_UNIT, margin: charged - 10 * PER_UNIT });
    expect((line.models as Record<string, unknown>)['vidx-v1']).toMatchObject({ upstream_cost: 10 * PER_UNIT });
  });

  it('a bad cost is refused, naming the field', async () => {
    const channel = await klingChannel();
    for (const [cost, param] of [
      [{ per_unit: 1.5 }, 'cost.per_unit'],
      [{ price_ratio: 0 }, 'cost.price_ratio'],
      [{ tolerance: 2 }, 'cost.tolerance'],
      [{ per_hour: 1 }, 'cost.per_hour'],
    ] as const) {
      const r = await t.h.admin(`/admin/channels/${channel}`, { method: 'PATCH', json: { cost } });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: { param: string } }).error.param).toBe(param);
    }
  });
});
