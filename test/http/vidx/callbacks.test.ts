// Client callbacks (signed with the token's own secret, verified by the `standardwebhooks` package as a client would,
// retried, delivered once, private targets refused) and upstream callbacks to the gateway's public URL (the task is
// updated at once, without the poller).
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { klingState } from '../../../simulator/kling/index.ts';
import { createSafeAgents } from '../../../src/net/safe-agent.ts';
import { TokenCallbackSigner } from '../../../src/tasks/callback-signing.ts';
import { CallbackDispatcher } from '../../../src/tasks/callbacks.ts';
import { useHarness } from '../../support/harness.ts';
import { startReceiver } from '../../support/receiver.ts';
import { ledgerOfTask } from '../../support/store-rows.ts';
import { call, type TaskData, vidxHarness, waitStatus } from '../../support/vidx.ts';
import { eventually, until } from '../../support/wait.ts';

const T2V = '/vidx/v1/videos/text2video';

/** A client's callback endpoint that answers 500 to the first `failFirst` deliveries, then 200. */
const receiver = (failFirst: number) => startReceiver({ failFirst, path: '/hooks/video' });

// A task, then its callback's attempts: on a loaded machine more than the default 30 s may pass.
describe('client callbacks', { timeout: 120_000 }, () => {
  const t = useHarness(vidxHarness({ env: { TOLLWAY_ALLOW_PRIVATE_NETWORK: '1' } }));

  it("POSTs the task data once at succeed, signed with the token's secret, after retrying failed attempts with back-off", async () => {
    const rx = await receiver(2);
    try {
      const { secret, callbackSecret } = await t.h.token();
      const other = await t.h.token({ name: 'another client' });
      expect(callbackSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const c = await call<TaskData>(t.h, secret, 'POST', T2V, {
        model_name: 'vidx-v2-5',
        prompt: 'callback me',
        callback_url: rx.url,
        external_task_id: 'cb-order-7',
      });
      const id = c.body.data.task_id;
      // Bounded generously: a loaded machine may take more than until()'s few seconds for a task and three attempts.
      expect(await eventually(() => rx.hits.some((x) => x.answered === 200), 30_000)).toBe(true);
      expect(
        await eventually(
          async () =>
            (await t.h.store.db.selectFrom('callbacks').select('state').where('task_id', '=', id).executeTakeFirst())
              ?.state === 'delivered',
          30_000,
        ),
      ).toBe(true);
      // Several more dispatcher rounds and a query: still exactly one successful delivery.
      await call(t.h, secret, 'GET', `${T2V}/${id}`);
      await new Promise((r) => setTimeout(r, 300));
      expect(rx.hits.map((x) => x.answered)).toEqual([500, 500, 200]);

      const ids = new Set(rx.hits.map((x) => x.headers['webhook-id']));
      expect(ids).toEqual(new Set([`cb_${id}`]));
      // The client's receiver, as the Standard Webhooks library checks it: id, timestamp (±5 min) and signature.
      const mine = new Webhook(callbackSecret);
      const theirs = new Webhook(other.callbackSecret);
      for (const hit of rx.hits) {
        const headers = hit.headers as Record<string, string>;
        expect(mine.verify(hit.body, headers)).toMatchObject({ task_id: id });
        expect(hit.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
        expect(hit.headers['content-type']).toBe('application/json');
        // Another client's secret does not verify it: it could not have signed it either.
        expect(() => theirs.verify(hit.body, headers)).toThrow('No matching signature found');
      }
      // A tampered body does not verify.
      const last = rx.hits.at(-1)!;
      expect(() => mine.verify(last.body.replace('succeed', 'failed'), last.headers as Record<string, string>)).toThrow(
        'No matching signature found',
      );

      const payload = JSON.parse(last.body) as TaskData;
      expect(payload).toMatchObject({
        task_id: id,
        task_status: 'succeed',
        model_name: 'vidx-v2-5-turbo',
        task_info: { external_task_id: 'cb-order-7' },
      });
      expect(payload.task_result.videos![0]!.id).toMatch(/^video_/);
      // Our ids only: the upstream task id never appears.
      const upstreamId = (
        await t.h.store.db.selectFrom('tasks').select('upstream_task_id').where('id', '=', id).executeTakeFirstOrThrow()
      ).upstream_task_id!;
      expect(last.body).not.toContain(upstreamId);
      const row = await t.h.store.db
        .selectFrom('callbacks')
        .selectAll()
        .where('task_id', '=', id)
        .executeTakeFirstOrThrow();
      expect(Number(row.attempts)).toBe(3);
    } finally {
      await rx.close();
    }
  });

  it('a failed task is reported too', async () => {
    const rx = await receiver(0);
    try {
      const { secret, callbackSecret } = await t.h.token();
      const c = await call<TaskData>(t.h, secret, 'POST', T2V, { prompt: 'sim-fault:fail-task', callback_url: rx.url });
      expect(await eventually(() => rx.hits.length > 0, 30_000)).toBe(true);
      expect(
        new Webhook(callbackSecret).verify(rx.hits[0]!.body, rx.hits[0]!.headers as Record<string, string>),
      ).toMatchObject({
        task_id: c.body.data.task_id,
        task_status: 'failed',
      });
    } finally {
      await rx.close();
    }
  });
});

// No poller and no dispatcher in this harness: the dispatcher tests below drive delivery by hand.
describe('upstream callbacks to the public URL; dispatcher by hand', () => {
  // No poller: only the upstream's callback can move the task.
  const t = useHarness(vidxHarness({ env: { TOLLWAY_TASK_POLLER: '0' } }));
  beforeAll(() => {
    t.h.config.publicUrl = t.h.url;
  });
  afterEach(() => t.h.sim.faults.clear());

  it('asks the upstream to call the gateway back, and updates the task at once', async () => {
    const { secret } = await t.h.token();
    const c = await call<TaskData>(t.h, secret, 'POST', T2V, { prompt: 'tell me when done' });
    const id = c.body.data.task_id;
    const sent = t.h.sim
      .requestsTo('/v1/videos/text2video')
      .filter((r) => r.method === 'POST')
      .at(-1)!.body as { callback_url: string };
    expect(sent.callback_url.startsWith(`${t.h.url}/vidx/callbacks/kling/${id}.`)).toBe(true);
    await until(
      async () =>
        (await t.h.store.db.selectFrom('tasks').select('state').where('id', '=', id).executeTakeFirst())?.state ===
        'succeeded',
      'task updated by the upstream callback',
    );
    // The poller may finish the task before the simulator's callback POST completes: wait for that too.
    await until(
      async () => klingState(t.h.sim.ctx).callbacks.some((x) => x.url === sent.callback_url && x.status === 200),
      'upstream callback answered 200',
    );
    expect(await ledgerOfTask(t.h, id)).toHaveLength(1);
    const q = await waitStatus(t.h, secret, `${T2V}/${id}`, 'succeed');
    expect(q.task_id).toBe(id);
  });

  it('gives up after the maximum attempts', async () => {
    const rx = await receiver(1000);
    const { id: tok } = await t.h.token();
    const dispatcher = new CallbackDispatcher({
      db: t.h.store.db,
      logger: pino({ level: 'silent' }),
      render: (task) => ({ task_id: task.id }),
      signer: new TokenCallbackSigner(t.h.gw.deps.repos.tokens, t.h.gw.deps.box),
      options: { tickMs: 1000, backoffBaseMs: 1, maxAttempts: 3, allowPrivateNetwork: true },
    });
    try {
      const now = Date.now();
      await t.h.store.db
        .insertInto('callbacks')
        .values({
          id: 'cb_manual_1',
          task_id: 'task_manual_1',
          token_id: tok,
          url: rx.url,
          payload: '{}',
          state: 'pending',
          attempts: 0,
          next_at: now,
          last_error: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 5));
        await dispatcher.deliverDue();
      }
      const row = await t.h.store.db
        .selectFrom('callbacks')
        .selectAll()
        .where('id', '=', 'cb_manual_1')
        .executeTakeFirstOrThrow();
      expect(row.state).toBe('failed');
      expect(row.last_error).toBe('HTTP 500');
      expect(rx.hits).toHaveLength(3);
      expect(await dispatcher.deliverDue()).toBe(0);
    } finally {
      await dispatcher.stop();
      await rx.close();
    }
  });

  it('never delivers to a name that resolves to a private address unless allowed', async () => {
    const rx = await receiver(0);
    const port = new URL(rx.url).port;
    // hooks.example.test "resolves" to loopback: the connect-time check must refuse it.
    const agents = createSafeAgents(async () => [{ address: '127.0.0.1', family: 4 }]);
    const { id: tok } = await t.h.token();
    const dispatcher = new CallbackDispatcher({
      db: t.h.store.db,
      logger: pino({ level: 'silent' }),
      render: (task) => ({ task_id: task.id }),
      signer: new TokenCallbackSigner(t.h.gw.deps.repos.tokens, t.h.gw.deps.box),
      options: { tickMs: 1000, backoffBaseMs: 1, maxAttempts: 5, allowPrivateNetwork: false },
      agents,
    });
    try {
      const now = Date.now();
      await t.h.store.db
        .insertInto('callbacks')
        .values({
          id: 'cb_manual_2',
          task_id: 'task_manual_2',
          token_id: tok,
          url: `http://hooks.example.test:${port}/x`,
          payload: '{}',
          state: 'pending',
          attempts: 0,
          next_at: now,
          last_error: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await dispatcher.deliverDue();
      const row = await t.h.store.db
        .selectFrom('callbacks')
        .selectAll()
        .where('id', '=', 'cb_manual_2')
        .executeTakeFirstOrThrow();
      expect(row.state).toBe('failed');
      expect(row.last_error).toMatch(/^refused: .*loopback/);
      expect(rx.hits).toHaveLength(0);
    } finally {
      await dispatcher.stop();
      await agents.close();
      await rx.close();
    }
  });
  it('refuses a callback address it did not issue', async () => {
    const { secret } = await t.h.token();
    const c = await call<TaskData>(t.h, secret, 'POST', T2V, { prompt: 'forged' });
    const r = await t.h.fetch(`/vidx/callbacks/kling/${c.body.data.task_id}.${'0'.repeat(32)}`, {
      method: 'POST',
      json: { task_status: 'succeed' },
    });
    expect(r.status).toBe(404);
    expect(((await r.json()) as { code: number }).code).toBe(1203);
  });
});
