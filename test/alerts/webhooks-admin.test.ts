// /admin/webhooks on a gateway that does not allow private networks: the CRUD and its paging, the secret shown once,
// private targets refused as given and again at delivery (a name resolving to loopback), and the task failure-rate
// alert's rule.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { WebhookDispatcher } from '../../src/alerts/dispatcher.ts';
import { createSafeAgents } from '../../src/net/safe-agent.ts';
import { useHarness } from '../support/harness.ts';
import { startReceiver } from '../support/receiver.ts';

interface View {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  secret?: string;
}

describe('admin webhooks', { timeout: 60_000 }, () => {
  // No background rounds after the first: each test runs the checks and deliveries it needs.
  const t = useHarness({ env: { TOLLWAY_ALERT_CHECK_MS: '3600000', TOLLWAY_WEBHOOK_TICK_MS: '600000' } });
  const create = (json: unknown) => t.h.admin('/admin/webhooks', { method: 'POST', json });

  it('creates, reads, pages, edits and deletes; the secret is shown at creation only', async () => {
    const made: View[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await create({ url: `https://hooks.example.com/${i}`, events: ['spend.threshold', 'breaker.opened'] });
      expect(r.status).toBe(201);
      made.push((await r.json()) as View);
    }
    expect(made[0]!.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const one = (await (await t.h.admin(`/admin/webhooks/${made[0]!.id}`)).json()) as View;
    expect(one).toMatchObject({ url: 'https://hooks.example.com/0', enabled: true });
    expect(one.secret).toBeUndefined();
    const p1 = (await (await t.h.admin('/admin/webhooks?limit=2')).json()) as {
      data: View[];
      has_more: boolean;
      next_cursor: string;
    };
    expect(p1.data.map((w) => w.url)).toEqual(['https://hooks.example.com/2', 'https://hooks.example.com/1']);
    expect(p1.has_more).toBe(true);
    const p2 = (await (await t.h.admin(`/admin/webhooks?limit=2&cursor=${p1.next_cursor}`)).json()) as {
      data: View[];
      has_more: boolean;
    };
    expect(p2.data.map((w) => w.url)).toEqual(['https://hooks.example.com/0']);
    expect(p2.has_more).toBe(false);
    const patched = await t.h.admin(`/admin/webhooks/${made[1]!.id}`, {
      method: 'PATCH',
      json: { enabled: false, events: ['hold.reaped'] },
    });
    expect(await patched.json()).toMatchObject({ enabled: false, events: ['hold.reaped'] });
    expect((await t.h.admin(`/admin/webhooks/${made[2]!.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await t.h.admin(`/admin/webhooks/${made[2]!.id}`)).status).toBe(404);
    expect((await t.h.admin(`/admin/webhooks/${made[2]!.id}/deliveries`)).status).toBe(404);
    const audit = (await (await t.h.admin('/admin/audit?action=webhook.create')).json()) as { data: unknown[] };
    expect(audit.data).toHaveLength(3);
  });

  it('refuses unknown events, unknown fields and loopback or private targets, naming the field', async () => {
    for (const [json, param] of [
      [{ url: 'https://hooks.example.com/x', events: ['spend.everything'] }, 'events'],
      [{ url: 'https://hooks.example.com/x', events: [] }, 'events'],
      [{ url: 'https://hooks.example.com/x' }, 'events'],
      [{ url: 'http://127.0.0.1:9/x', events: ['hold.reaped'] }, 'url'],
      [{ url: 'http://10.1.2.3/x', events: ['hold.reaped'] }, 'url'],
      [{ url: 'http://alerts.localhost/x', events: ['hold.reaped'] }, 'url'],
      [{ url: 'ftp://hooks.example.com/x', events: ['hold.reaped'] }, 'url'],
    ] as const) {
      const r = await create(json);
      expect(r.status, JSON.stringify(json)).toBe(400);
      expect(((await r.json()) as { error: { param: string } }).error.param).toBe(param);
    }
    expect((await create({ url: 'https://hooks.example.com/x', events: ['hold.reaped'], secret: 'mine' })).status).toBe(
      400,
    );
  });

  it('never delivers to a name that resolves to a private address', async () => {
    const rx = await startReceiver();
    const agents = createSafeAgents(async () => [{ address: '127.0.0.1', family: 4 }]);
    const o = t.h.config.alerts;
    const dispatcher = new WebhookDispatcher(
      t.h.store.db,
      t.h.gw.deps.box,
      pino({ level: 'silent' }),
      { ...o, allowPrivateNetwork: false },
      agents,
    );
    try {
      const r = await create({ url: `http://hooks.example.test:${new URL(rx.url).port}/x`, events: ['hold.reaped'] });
      const { id } = (await r.json()) as View;
      await t.h.gw.deps.alerts.emit('hold.reaped', { key: 'req_x', token_id: 'tok_x', amount: 1 });
      await dispatcher.deliverDue();
      const page = (await (await t.h.admin(`/admin/webhooks/${id}/deliveries`)).json()) as {
        data: Array<{ state: string; attempts: number; last_error: string; next_try_at: number | null }>;
      };
      expect(page.data).toHaveLength(1);
      expect(page.data[0]).toMatchObject({ state: 'failed', attempts: 1, next_try_at: null });
      expect(page.data[0]!.last_error).toMatch(/^refused: .*loopback/);
      expect(rx.hits).toHaveLength(0);
    } finally {
      await dispatcher.stop();
      await agents.close();
      await rx.close();
    }
  });

  it('announces a task failure rate over the threshold once per window, whichever instance checks', async () => {
    const r = await create({ url: 'https://hooks.example.com/tasks', events: ['tasks.failure_rate'] });
    const { id } = (await r.json()) as View;
    const now = Date.now();
    const task = (i: number, state: string) => ({
      id: `task_rate_${i}`,
      family: 'a',
      kind: 'kling-text2video',
      token_id: t.tokenId,
      model: 'm',
      billing_model: 'm',
      upstream_model: 'm',
      channel_id: 'ch',
      upstream_task_id: null,
      state,
      upstream_status: null,
      progress: null,
      request: '{}',
      result: null,
      usage: null,
      error: null,
      external_task_id: null,
      callback_url: null,
      session_id: null,
      request_id: `r${i}`,
      upstream_request_id: null,
      tier: null,
      hold_amount: 0,
      next_poll_at: now,
      lease_owner: null,
      lease_until: null,
      created_at: now - 1000,
      updated_at: now,
      finished_at: now - 500,
      checked_at: null,
      slot_queue: null,
      submit_body: null,
    });
    // 9 finished, 5 failed: under the 10 tasks the rate needs.
    await t.h.store.db
      .insertInto('tasks')
      .values(Array.from({ length: 9 }, (_, i) => task(i, i < 5 ? 'failed' : 'succeeded')))
      .execute();
    const watch = t.h.gw.alerts.watch;
    expect(await watch.taskFailureRate(now)).toBe(false);
    // 10 finished, 5 failed: 50 %, the default threshold.
    await t.h.store.db.insertInto('tasks').values(task(9, 'succeeded')).execute();
    expect(await watch.taskFailureRate(now)).toBe(true);
    expect(await watch.taskFailureRate(now + 1)).toBe(false);
    const page = (await (await t.h.admin(`/admin/webhooks/${id}/deliveries`)).json()) as {
      data: Array<{ payload: { data: Record<string, unknown> } }>;
    };
    expect(page.data).toHaveLength(1);
    expect(page.data[0]!.payload.data).toMatchObject({
      finished: 10,
      failed: 5,
      failure_percent: 50,
      threshold_percent: 50,
    });
  });
});
