// The budget alerts an operator acts on: `limit.reached` when calls start being refused (once per holder, limit and
// period, across instances), with names, a message and ISO dates; `spend.threshold` with the same, each threshold
// announced when the spend crosses it (never two in one check).
import { describe, expect, it } from 'vitest';
import type { LimitRefused } from '../../src/metering/refusal.ts';
import { useHarness } from '../support/harness.ts';
import { until } from '../support/wait.ts';

const ENV = { TOLLWAY_ALERT_CHECK_MS: '3600000', TOLLWAY_TASK_POLLER: 'false' };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface Payload {
  type: string;
  timestamp: string;
  data: {
    holder: { kind: string; id: string; name: string | null };
    limit: {
      kind: string;
      period?: string;
      budget_period: string | null;
      period_start: string | null;
      period_end: string | null;
      amount: number;
    };
    threshold?: number;
    estimate?: number;
    remaining?: number;
    message: string;
  };
}

describe('budget alerts', { timeout: 120_000 }, () => {
  const t = useHarness({ env: ENV });

  async function post<T>(path: string, json: unknown): Promise<T> {
    const r = await t.h.admin(path, { method: 'POST', json });
    expect(r.status).toBeLessThan(300);
    return (await r.json()) as T;
  }

  async function deliveries(type: string, holderId: string): Promise<Payload[]> {
    const rows = await t.h.store.db
      .selectFrom('webhook_deliveries')
      .select('payload')
      .where('event_type', '=', type)
      .execute();
    return rows.map((r) => JSON.parse(r.payload) as Payload).filter((p) => p.data.holder.id === holderId);
  }

  const chat = (secret: string) =>
    t.h.fetch('/v1/chat/completions', {
      method: 'POST',
      token: secret,
      json: { model: 'qwx3.7-plus', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
    });

  it('refused calls announce limit.reached once per period, across instances, with names and ISO dates', async () => {
    await post('/admin/webhooks', { url: 'https://hooks.example.com/limit', events: ['limit.reached'] });
    const acc = await post<{ id: string }>('/admin/accounts', {
      name: 'Limit Co',
      budgets: [{ period: 'month', limit: 0 }],
    });
    const tok = await post<{ token: string }>('/admin/tokens', { name: 'limit-app', account_id: acc.id });
    expect((await chat(tok.token)).status).toBe(429);
    expect((await chat(tok.token)).status).toBe(429);
    await until(async () => (await deliveries('limit.reached', acc.id)).length > 0, 'the limit.reached delivery');
    const [d] = await deliveries('limit.reached', acc.id);
    expect(d!.type).toBe('limit.reached');
    expect(d!.data.holder).toEqual({ kind: 'account', id: acc.id, name: 'Limit Co' });
    expect(d!.data.limit).toMatchObject({ kind: 'budget', budget_period: 'month', amount: 0 });
    expect(d!.data.limit.period_start).toMatch(ISO);
    expect(d!.data.limit.period_end).toMatch(ISO);
    expect(d!.data.remaining).toBe(0);
    expect(d!.data.message).toContain('The account "Limit Co"');
    expect(d!.data.message).toContain('its month budget is used up');
    expect(d!.data.message).toContain(`Calls are accepted again from ${d!.data.limit.period_end}`);
    expect(d!.data.message).not.toMatch(/month:\d/);
    // The same refusal seen again on this instance and on another: nothing more.
    const again: LimitRefused = {
      holderKind: 'account',
      holderId: acc.id,
      limitKind: 'budget',
      period: 'month',
      periodStart: Date.parse(d!.data.limit.period_start!),
      periodEnd: Date.parse(d!.data.limit.period_end!),
      limit: 0,
      estimate: 100,
      left: 0,
      subject: 'call',
    };
    const other = await t.h.instance();
    expect(await t.h.gw.deps.alerts.limitReached(again)).toBe(false);
    expect(await other.gw.deps.alerts.limitReached(again)).toBe(false);
    expect(await deliveries('limit.reached', acc.id)).toHaveLength(1);
    // A new period announces again, once, whichever of two instances sees it first.
    const next = { ...again, periodStart: again.periodEnd!, periodEnd: again.periodEnd! + 30 * 86_400_000 };
    const both = await Promise.all([t.h.gw.deps.alerts.limitReached(next), other.gw.deps.alerts.limitReached(next)]);
    expect(both.filter(Boolean)).toHaveLength(1);
    expect(await deliveries('limit.reached', acc.id)).toHaveLength(2);
  });

  it('a call larger than what is left announces it with the estimate and what is left', async () => {
    await post('/admin/webhooks', { url: 'https://hooks.example.com/limit-2', events: ['limit.reached'] });
    const tok = await post<{ id: string; token: string }>('/admin/tokens', { name: 'quota-app', quota: 10 });
    expect((await chat(tok.token)).status).toBe(429);
    await until(async () => (await deliveries('limit.reached', tok.id)).length > 0, 'the limit.reached delivery');
    const [d] = await deliveries('limit.reached', tok.id);
    expect(d!.data.holder).toEqual({ kind: 'token', id: tok.id, name: 'quota-app' });
    expect(d!.data.limit).toMatchObject({ kind: 'quota', period_start: null, period_end: null, amount: 10 });
    expect(d!.data.remaining).toBe(10);
    expect(d!.data.estimate).toBeGreaterThan(10);
    expect(d!.data.message).toMatch(
      /The token "quota-app" \(tok_\w+\) has calls refused: a call's estimate of [\d.]+ units is above the 0\.000010 units its quota leaves/,
    );
  });

  it('spend.threshold: each threshold when the spend crosses it, with names, a message and the ISO period', async () => {
    await post('/admin/webhooks', { url: 'https://hooks.example.com/spend', events: ['spend.threshold'] });
    const acc = await post<{ id: string }>('/admin/accounts', { name: 'Steps', time_zone: 'Europe/Paris' });
    const level = {
      holderKind: 'account' as const,
      holderId: acc.id,
      limitKind: 'budget' as const,
      periodKey: 'month:1796079600000',
      budgetPeriod: 'month',
      periodStart: 1_796_079_600_000,
      periodEnd: 1_798_758_000_000,
      limit: 1000,
    };
    const alerts = t.h.gw.deps.alerts;
    expect(await alerts.spendCrossed({ ...level, spent: 550 })).toEqual([50]);
    // 50 and 80 were not crossed together here: 80 comes when the spend crosses it.
    expect(await alerts.spendCrossed({ ...level, spent: 850 })).toEqual([80]);
    // Two thresholds passed in one step: only the highest is announced.
    const jump = { ...level, periodKey: 'month:1798758000000', periodStart: 1_798_758_000_000 };
    expect(await alerts.spendCrossed({ ...jump, spent: 1000 })).toEqual([100]);
    expect(await alerts.spendCrossed({ ...jump, spent: 1000 })).toEqual([]);
    const got = await deliveries('spend.threshold', acc.id);
    expect(got.map((d) => d.data.threshold).sort()).toEqual([100, 50, 80]);
    const first = got.find((d) => d.data.threshold === 50)!;
    expect(first.data.holder.name).toBe('Steps');
    expect(first.data.limit).toMatchObject({
      kind: 'budget',
      period: 'month:1796079600000',
      budget_period: 'month',
      period_start: '2026-11-30T23:00:00.000Z',
      period_end: '2026-12-31T23:00:00.000Z',
    });
    expect(first.data.message).toBe(
      'The account "Steps" (' +
        acc.id +
        ') has spent 55 % of its month budget: 0.000550 of 0.001000 units (period 2026-11-30T23:00:00.000Z to 2026-12-31T23:00:00.000Z).',
    );
  });
});
