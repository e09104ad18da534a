// Client completion callbacks (`callback_url` of family A tasks and of /v1/videos). A durable outbox in the callbacks
// table:
//  1. enqueue — every terminal task with a callback_url gets exactly one row (id `cb_<task id>`,
//     the primary key makes the enqueue exactly-once across instances), payload rendered at that moment;
//  2. deliver — due rows are claimed by compare-and-set on next_at (a short lease), POSTed signed with the owning
//     token's callback secret (Standard Webhooks; callback-signing.ts), marked delivered on 2xx, otherwise retried
//     with exponential back-off up to maxAttempts. Deliveries run in a bounded pool that never waits for the slowest
//     row, with a share per receiver host and a breaker per host (net/delivery-pool.ts, net/outbox-pump.ts).
// Delivery is at-least-once (a crash after the POST and before the mark re-sends); receivers dedupe on
// `webhook-id`. Loopback/private targets are refused at connect time unless the operator allows them.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { createSafeAgents, type SafeAgents } from '../net/safe-agent.ts';
import { DEFAULT_DELIVERY_POOL, DeliveryPool, type DeliveryPoolOptions } from '../net/delivery-pool.ts';
import { OutboxPump, type Prepared } from '../net/outbox-pump.ts';
import { nextTry, postSigned } from '../net/signed-post.ts';
import { RoundLoop } from '../runtime/round-loop.ts';
import { claimDue, deferClaimed } from '../store/repos/outbox-claim.ts';
import { storedFamily, toTaskRecord } from '../store/repos/tasks.ts';
import type { Database } from '../store/schema.ts';
import { isUniqueViolation } from '../store/store-errors.ts';
import type { CallbackSigner } from './callback-signing.ts';
import type { TaskRecord } from './types.ts';

export interface CallbackOptions {
  tickMs: number;
  backoffBaseMs: number;
  maxAttempts: number;
  allowPrivateNetwork: boolean;
  /** Per-delivery timeout. */
  timeoutMs?: number;
  /** Deliveries in flight, a host's share of them, its breaker (default DEFAULT_DELIVERY_POOL). */
  pool?: DeliveryPoolOptions;
}

export interface CallbackDeps {
  db: Kysely<Database>;
  logger: Logger;
  options: CallbackOptions;
  /** The body sent for a finished task (family A: the vendor's task data with our ids; /v1: the video object). */
  render(task: TaskRecord): unknown;
  /** The secrets each delivery is signed with: its token's. */
  signer: CallbackSigner;
  agents?: SafeAgents;
}

/** Only tasks finished in this window are looked at for enqueueing (bounds the scan). */
const ENQUEUE_WINDOW_MS = 24 * 3600_000;
const CLAIM_MS = 60_000;

export class CallbackDispatcher {
  private readonly loop: RoundLoop;
  private readonly agents: SafeAgents;
  private readonly ownAgents: boolean;
  private readonly pump: OutboxPump;

  constructor(private readonly deps: CallbackDeps) {
    this.agents = deps.agents ?? createSafeAgents();
    this.ownAgents = !deps.agents;
    const onError = (e: unknown) => deps.logger.error({ err: String(e) }, 'callback round failed');
    // The loop's round does not wait for its deliveries: each one that ends kicks another round (a new claim).
    this.loop = new RoundLoop(
      async () => {
        await this.enqueueFinished();
        await this.pump.round();
      },
      deps.options.tickMs,
      onError,
    );
    const pool = new DeliveryPool(deps.options.pool ?? DEFAULT_DELIVERY_POOL);
    this.pump = new OutboxPump(
      { claim: (max, now) => this.claim(max, now) },
      pool,
      deps.options.timeoutMs ?? 10_000,
      () => this.loop.kick(),
      onError,
    );
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.pump.drain();
    if (this.ownAgents) await this.agents.close();
  }

  /** Something may have finished: run a round soon instead of waiting for the next tick. */
  kick(): void {
    this.loop.kick();
  }

  /** One round: enqueue newly finished tasks, deliver what is due. Returns deliveries attempted. */
  async tick(now = Date.now()): Promise<number> {
    await this.enqueueFinished(now);
    return this.deliverDue(now);
  }

  async enqueueFinished(now = Date.now()): Promise<number> {
    const rows = await this.deps.db
      .selectFrom('tasks')
      .selectAll()
      .where('family', 'in', [storedFamily('vidx'), storedFamily('v1')])
      // A video its owner deleted is not called back about.
      .where('deleted_at', 'is', null)
      .where('state', 'in', ['succeeded', 'failed', 'cancelled'])
      .where('callback_url', 'is not', null)
      .where('finished_at', '>', now - ENQUEUE_WINDOW_MS)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('callbacks').select('callbacks.id').whereRef('callbacks.task_id', '=', 'tasks.id'))),
      )
      .limit(200)
      .execute();
    let n = 0;
    for (const r of rows) {
      const t = toTaskRecord(r);
      try {
        await this.deps.db
          .insertInto('callbacks')
          .values({
            id: `cb_${t.id}`,
            task_id: t.id,
            token_id: t.tokenId,
            url: t.callbackUrl!,
            payload: JSON.stringify(this.deps.render(t)),
            state: 'pending',
            attempts: 0,
            next_at: now,
            last_error: null,
            created_at: now,
            updated_at: now,
          })
          .execute();
        n++;
      } catch (e) {
        if (!isUniqueViolation(e)) throw e; // another instance enqueued it first
      }
    }
    return n;
  }

  /** Starts what is due and the pool has room for, and waits for those deliveries. Returns how many. */
  async deliverDue(now = Date.now()): Promise<number> {
    const started = await this.pump.round(now);
    await Promise.all(started);
    return started.length;
  }

  private async claim(max: number, now: number): Promise<Prepared[]> {
    const claimed = await claimDue(this.deps.db, 'callbacks', now, CLAIM_MS, max);
    return claimed.map(({ row: c, attempt }) => ({
      url: c.url,
      send: (timeoutMs: number) => this.deliverOne(c.id, c.url, c.payload, attempt, c.task_id, c.token_id, timeoutMs),
      defer: (until: number) => deferClaimed(this.deps.db, 'callbacks', c.id, attempt, until),
    }));
  }

  private async deliverOne(
    id: string,
    url: string,
    payload: string,
    attempt: number,
    taskId: string,
    tokenId: string,
    timeoutMs: number,
  ): Promise<{ timedOut: boolean }> {
    const o = this.deps.options;
    const outcome = await postSigned({
      url,
      id,
      body: payload,
      // Signed at each attempt: a retry after a rotation carries the new secret's signature.
      secrets: () => this.deps.signer.secretsFor(tokenId),
      userAgent: 'tollway-callbacks/1',
      agents: this.agents,
      allowPrivateNetwork: o.allowPrivateNetwork,
      timeoutMs,
    });
    const now = Date.now();
    const { error } = outcome;
    if (error === null) {
      await this.deps.db
        .updateTable('callbacks')
        .set({ state: 'delivered', last_error: null, updated_at: now })
        .where('id', '=', id)
        .execute();
      this.deps.logger.info({ task_id: taskId, callback_id: id, attempt }, 'callback delivered');
      return { timedOut: false };
    }
    const next = nextTry(attempt, outcome, o, now);
    await this.deps.db
      .updateTable('callbacks')
      .set(
        next === null
          ? { state: 'failed', last_error: error, updated_at: now }
          : { next_at: next, last_error: error, updated_at: now },
      )
      .where('id', '=', id)
      .execute();
    this.deps.logger.warn(
      { task_id: taskId, callback_id: id, attempt, error, gave_up: next === null },
      'callback delivery failed',
    );
    return { timedOut: outcome.timedOut === true };
  }
}
