// model_limits on the admin API: validated with 400s naming the field, stored, shown, cleared by null; and an
// account's fair-share weight.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';

describe('model_limits and account weight on the admin API', () => {
  const t = useHarness();

  const simChannel = async () => {
    const list = (await (await t.h.admin('/admin/channels')).json()) as { data: Array<{ id: string; name: string }> };
    return list.data.find((c) => c.name === 'sim-dashscope')!.id;
  };

  it('refuses malformed limits naming the field', async () => {
    const id = await simChannel();
    for (const bad of [[1], { m: { rpm: 0 } }, { m: { rpm: 1.5 } }, { m: { rps: 3 } }, { m: {} }, 'x']) {
      const r = await t.h.admin(`/admin/channels/${id}`, { method: 'PATCH', json: { model_limits: bad } });
      expect(r.status).toBe(400);
      const body = (await r.json()) as { error: { param?: string; message: string } };
      expect(body.error.message).toContain('model_limits');
    }
  });

  it('stores, shows and clears them; the gate follows', async () => {
    const id = await simChannel();
    const r = await t.h.admin(`/admin/channels/${id}`, {
      method: 'PATCH',
      json: { model_limits: { '*': { rpm: 600, concurrency: 3 } } },
    });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { model_limits: unknown }).model_limits).toEqual({ '*': { rpm: 600, concurrency: 3 } });
    expect(t.h.gw.deps.capacity.active()).toBe(true);
    const cleared = await t.h.admin(`/admin/channels/${id}`, { method: 'PATCH', json: { model_limits: null } });
    expect(((await cleared.json()) as { model_limits: unknown }).model_limits).toBeNull();
    expect(t.h.gw.deps.capacity.active()).toBe(false);
  });

  it('takes an account weight (default 1)', async () => {
    const a = await t.h.admin('/admin/accounts', { method: 'POST', json: { name: 'heavy', weight: 3 } });
    expect(a.status).toBe(201);
    const acc = (await a.json()) as { id: string; weight: number };
    expect(acc.weight).toBe(3);
    const plain = (await (await t.h.admin('/admin/accounts', { method: 'POST', json: { name: 'plain' } })).json()) as {
      weight: number;
    };
    expect(plain.weight).toBe(1);
    expect((await t.h.admin(`/admin/accounts/${acc.id}`, { method: 'PATCH', json: { weight: 0 } })).status).toBe(400);
  });
});
