// Operator alert webhooks with two gateway instances on one store (two processes of a cluster: on PostgreSQL each
// with its own connection pool): a quota threshold crossing, a breaker's opening and closing and a reaped hold are
// each delivered exactly once however many instances see them, signed with the webhook's own secret (verified with
// the `standardwebhooks` package, as the operator's receiver would), and retried after the receiver failed.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../src/process-life.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { ADMIN_KEY, SECRET, useHarness } from '../support/harness.ts';
import { startReceiver, type Hit, type Receiver } from '../support/receiver.ts';
import { testDialect } from '../support/store.ts';
import { eventually } from '../support/wait.ts';

interface Delivered {
  type: string;
  data: { event_id: string; threshold?: number; holder?: { id: string }; channel?: { id: string }; key?: string };
}

// Checks are run by hand below; the background ones wait an hour. Deliveries retry after 10 ms.
const ENV = {
  TOLLWAY_ALLOW_PRIVATE_NETWORK: '1',
  TOLLWAY_ALERT_CHECK_MS: '3600000',
  TOLLWAY_WEBHOOK_BACKOFF_MS: '10',
  TOLLWAY_WEBHOOK_TICK_MS: '20',
  TOLLWAY_RESERVATION_TTL_MS: '1000',
  TOLLWAY_TASK_POLLER: 'false',
};

describe('alert webhooks across two instances', { timeout: 120_000 }, () => {
  const t = useHarness({ env: ENV });
  let store2: Store | null = null;
  let gw2: Gateway;
  beforeAll(async () => {
    if (testDialect() === 'postgres') {
      // Its own pool on the same database, as another process has.
      store2 = await openStore(process.env.TEST_DATABASE_URL!, { pgSchema: t.h.pgSchema! });
      gw2 = await startGateway(t.h.config, { adminKey: ADMIN_KEY, secret: SECRET, store: store2 });
    } else {
      gw2 = (await t.h.instance()).gw;
    }
  });
  afterAll(async () => {
    if (store2) {
      await gw2.close();
      await store2.close();
    }
  });

  /** A webhook for `events` pointing at a fresh receiver; its secret verifies every hit. */
  async function hook(
    events: string[],
    failFirst = 0,
  ): Promise<{ id: string; rx: Receiver; verify(hit: Hit): Delivered }> {
    const rx = await startReceiver({ failFirst, path: '/alerts' });
    const r = await t.h.admin('/admin/webhooks', { method: 'POST', json: { url: rx.url, events } });
    expect(r.status).toBe(201);
    const body = (await r.json()) as { id: string; secret: string };
    expect(body.secret).toMatch(/^whsec_/);
    const wh = new Webhook(body.secret);
    return {
      id: body.id,
      rx,
      verify: (hit) => wh.verify(hit.body, hit.headers as Record<string, string>) as Delivered,
    };
  }

  const ok = (rx: Receiver) => rx.hits.filter((h) => h.answered === 200);

  it('a quota threshold crossing is delivered once (the highest crossed), retried after the receiver failed, signed', async () => {
    const w = await hook(['spend.threshold'], 1);
    try {
      const tok = await t.h.token({ name: 'alerted', quota: 1_000_000 });
      const r = await t.h.fetch('/v1/chat/completions', {
        method: 'POST',
        token: tok.secret,
        json: { model: 'qwx3.7-plus', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(r.status).toBe(200);
      await t.h.gw.deps.meter.flush();
      const spent = Number(
        (await t.h.store.db.selectFrom('tokens').select('spent').where('id', '=', tok.id).executeTakeFirstOrThrow())
          .spent,
      );
      expect(spent).toBeGreaterThan(0);
      // A quota of which the spending is 85 %: past 50 and 80, short of 100.
      const quota = Math.ceil(spent / 0.85);
      expect((await t.h.admin(`/admin/tokens/${tok.id}`, { method: 'PATCH', json: { quota } })).status).toBe(200);
      // Both instances check at once, twice.
      await Promise.all([t.h.gw.alerts.watch.check(), gw2.alerts.watch.check()]);
      await Promise.all([t.h.gw.alerts.watch.check(), gw2.alerts.watch.check()]);
      await Promise.all([t.h.gw.alerts.dispatcher.deliverDue(), gw2.alerts.dispatcher.deliverDue()]);
      expect(await eventually(() => ok(w.rx).length >= 1, 20_000)).toBe(true);
      const got = ok(w.rx).map(w.verify);
      // 50 and 80 passed in one step: only 80 is announced (50 is marked without an event).
      expect(got.map((d) => d.data.threshold)).toEqual([80]);
      expect(got.every((d) => d.type === 'spend.threshold' && d.data.holder?.id === tok.id)).toBe(true);
      // The first attempt was answered 500; its retry carried the same webhook-id.
      expect(w.rx.hits[0]!.answered).toBe(500);
      const failedId = w.rx.hits[0]!.headers['webhook-id'];
      expect(ok(w.rx).filter((h) => h.headers['webhook-id'] === failedId)).toHaveLength(1);
      const page = (await (await t.h.admin(`/admin/webhooks/${w.id}/deliveries`)).json()) as {
        data: Array<{ id: string; state: string; attempts: number; last_status: number }>;
      };
      expect(page.data).toHaveLength(1);
      expect(page.data.every((d) => d.state === 'delivered' && d.last_status === 200)).toBe(true);
      expect(page.data.find((d) => d.id === failedId)?.attempts).toBe(2);
      // More rounds on both instances: nothing new.
      await Promise.all([
        t.h.gw.alerts.watch.check(),
        gw2.alerts.watch.check(),
        t.h.gw.alerts.dispatcher.deliverDue(),
        gw2.alerts.dispatcher.deliverDue(),
      ]);
      expect(ok(w.rx)).toHaveLength(1);
      expect(w.rx.hits).toHaveLength(2);
    } finally {
      await w.rx.close();
    }
  });

  it('a threshold crossed while both instances announce it at once is written once', async () => {
    const level = {
      holderKind: 'token' as const,
      holderId: 'tok_race',
      limitKind: 'quota' as const,
      periodKey: '1000',
      spent: 1000,
      limit: 1000,
    };
    const [a, b] = await Promise.all([t.h.gw.deps.alerts.spendCrossed(level), gw2.deps.alerts.spendCrossed(level)]);
    expect([...a, ...b]).toEqual([100]);
    // A new period (a top-up's new quota) announces its thresholds anew.
    expect(await gw2.deps.alerts.spendCrossed({ ...level, periodKey: '2000', spent: 1000, limit: 2000 })).toEqual([50]);
  });

  it('a breaker opening and closing on both instances is delivered once each', async () => {
    const w = await hook(['breaker.opened', 'breaker.closed']);
    try {
      const ch = t.h.gw.deps.channels.all()[0]!;
      const [a1, a2] = await Promise.all([
        t.h.gw.deps.alerts.breakerChanged({ id: ch.id, name: ch.name }, 'opened'),
        gw2.deps.alerts.breakerChanged({ id: ch.id, name: ch.name }, 'opened'),
      ]);
      expect([a1, a2].filter(Boolean)).toHaveLength(1);
      const [c1, c2] = await Promise.all([
        t.h.gw.deps.alerts.breakerChanged({ id: ch.id, name: ch.name }, 'closed'),
        gw2.deps.alerts.breakerChanged({ id: ch.id, name: ch.name }, 'closed'),
      ]);
      expect([c1, c2].filter(Boolean)).toHaveLength(1);
      // Through the breakers themselves: five failures open this instance's, a success closes it.
      for (let i = 0; i < 5; i++) t.h.gw.deps.breakers.failure(ch.id, 'upstream_error');
      expect(await eventually(() => ok(w.rx).length >= 3, 20_000)).toBe(true);
      t.h.gw.deps.breakers.success(ch.id);
      expect(await eventually(() => ok(w.rx).length >= 4, 20_000)).toBe(true);
      const got = ok(w.rx).map(w.verify);
      // Each change once; deliveries carry no order (receivers order by the event's timestamp): the first close may
      // arrive after the second open.
      expect(got.map((d) => d.type).sort()).toEqual([
        'breaker.closed',
        'breaker.closed',
        'breaker.opened',
        'breaker.opened',
      ]);
      expect(got.every((d) => d.data.channel?.id === ch.id)).toBe(true);
    } finally {
      await w.rx.close();
    }
  });

  it('a reservation left open is reaped once and announced', async () => {
    const w = await hook(['hold.reaped']);
    try {
      const tok = await t.h.token({ name: 'reaped', quota: 10_000_000 });
      const old = Date.now() - 3_600_000;
      await t.h.store.db
        .insertInto('holds')
        .values({
          hold_key: 'req_left_open',
          token_id: tok.id,
          amount: 500,
          state: 'held',
          created_at: old,
          updated_at: old,
        })
        .execute();
      await t.h.store.db.updateTable('tokens').set({ held: 500 }).where('id', '=', tok.id).execute();
      // Both instances' reapers run every second.
      expect(await eventually(() => ok(w.rx).length >= 1, 20_000)).toBe(true);
      const got = ok(w.rx).map(w.verify);
      expect(got).toHaveLength(1);
      expect(got[0]!.data).toMatchObject({ key: 'req_left_open', token_id: tok.id, amount: 500 });
    } finally {
      await w.rx.close();
    }
  });
});
