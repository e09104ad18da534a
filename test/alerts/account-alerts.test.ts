// Spending alerts of accounts: an account's quota and a budget's current period, crossed by real charges, each
// delivered once per threshold and period (the token-quota case, across two instances: webhooks-two-instances.test.ts).
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { startReceiver } from '../support/receiver.ts';
import { eventually } from '../support/wait.ts';

interface Delivered {
  type: string;
  data: { threshold: number; holder: { kind: string; id: string }; limit: { kind: string; period: string } };
}

const ENV = {
  TOLLWAY_ALLOW_PRIVATE_NETWORK: '1',
  TOLLWAY_ALERT_CHECK_MS: '3600000',
  TOLLWAY_WEBHOOK_TICK_MS: '20',
  TOLLWAY_TASK_POLLER: 'false',
};

describe('account spending alerts', { timeout: 120_000 }, () => {
  const t = useHarness({ env: ENV });

  it("an account's quota and its day budget each alert once per threshold crossed", async () => {
    const rx = await startReceiver({ path: '/alerts' });
    try {
      const hook = await t.h.admin('/admin/webhooks', {
        method: 'POST',
        json: { url: rx.url, events: ['spend.threshold'] },
      });
      expect(hook.status).toBe(201);
      const wh = new Webhook(((await hook.json()) as { secret: string }).secret);
      const acc = await t.h.admin('/admin/accounts', {
        method: 'POST',
        json: { name: 'customer', budgets: [{ period: 'day', limit: 1_000_000_000 }] },
      });
      expect(acc.status).toBe(201);
      const accountId = ((await acc.json()) as { id: string }).id;
      const made = await t.h.admin('/admin/tokens', { method: 'POST', json: { name: 'app', account_id: accountId } });
      expect(made.status).toBe(201);
      const tok = (await made.json()) as { token: string };
      const r = await t.h.fetch('/v1/chat/completions', {
        method: 'POST',
        token: tok.token,
        json: { model: 'qwx3.7-plus', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(r.status).toBe(200);
      await t.h.gw.deps.meter.flush();
      const spent = Number(
        (
          await t.h.store.db
            .selectFrom('accounts')
            .select('spent')
            .where('id', '=', accountId)
            .executeTakeFirstOrThrow()
        ).spent,
      );
      expect(spent).toBeGreaterThan(0);
      // The quota 85 % spent (50 and 80 crossed at once: 80 announced); the day's budget 60 % spent (50 crossed).
      const patch = { quota: Math.ceil(spent / 0.85), budgets: [{ period: 'day', limit: Math.ceil(spent / 0.6) }] };
      expect((await t.h.admin(`/admin/accounts/${accountId}`, { method: 'PATCH', json: patch })).status).toBe(200);
      for (let i = 0; i < 2; i++) await t.h.gw.alerts.watch.check();
      await t.h.gw.alerts.dispatcher.deliverDue();
      expect(await eventually(() => rx.hits.length >= 2, 20_000)).toBe(true);
      const got = rx.hits.map((h) => wh.verify(h.body, h.headers as Record<string, string>) as Delivered);
      expect(
        got.every(
          (d) => d.type === 'spend.threshold' && d.data.holder.kind === 'account' && d.data.holder.id === accountId,
        ),
      ).toBe(true);
      const seen = got.map((d) => `${d.data.limit.kind}:${d.data.threshold}`).sort();
      expect(seen).toEqual(['budget:50', 'quota:80']);
      expect(got.find((d) => d.data.limit.kind === 'budget')?.data.limit.period).toMatch(/^day:\d+$/);
      // Checked again: nothing new.
      await t.h.gw.alerts.watch.check();
      await t.h.gw.alerts.dispatcher.deliverDue();
      expect(rx.hits).toHaveLength(2);
    } finally {
      await rx.close();
    }
  });
});
