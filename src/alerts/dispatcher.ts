// Delivers the alert outbox (webhook_deliveries): due rows are claimed by compare-and-set (store/repos/outbox-claim.ts,
// a lease, so one instance sends a given attempt), POSTed signed with the webhook's own secret (Standard Webhooks, by
// attempt.ts), marked delivered on 2xx, otherwise retried with back-off until the attempts run out — the same signed
// POST and retry rule as client callbacks (net/signed-post.ts), in the same kind of bounded pool that never waits for
// the slowest row, with a share per receiver host and a breaker per host (net/outbox-pump.ts). At-least-once:
// receivers dedupe on `webhook-id`.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { SecretBox } from '../auth/secret-box.ts';
import { createSafeAgents, type SafeAgents } from '../net/safe-agent.ts';
import { DEFAULT_DELIVERY_POOL, DeliveryPool } from '../net/delivery-pool.ts';
import { OutboxPump, type Prepared } from '../net/outbox-pump.ts';
import { attemptDelivery, type AttemptContext, LEASE_MS, liveHook } from './attempt.ts';
import { RoundLoop } from '../runtime/round-loop.ts';
import { claimDue, deferClaimed } from '../store/repos/outbox-claim.ts';
import type { Database } from '../store/schema.ts';

export interface WebhookDeliveryOptions {
  tickMs: number;
  backoffBaseMs: number;
  maxAttempts: number;
  allowPrivateNetwork: boolean;
  timeoutMs: number;
}

export class WebhookDispatcher {
  private readonly loop: RoundLoop;
  private readonly agents: SafeAgents;
  private readonly ownAgents: boolean;
  private readonly pump: OutboxPump;
  private readonly ctx: AttemptContext;

  constructor(
    private readonly db: Kysely<Database>,
    box: SecretBox,
    logger: Logger,
    o: WebhookDeliveryOptions,
    agents?: SafeAgents,
  ) {
    this.agents = agents ?? createSafeAgents();
    this.ownAgents = !agents;
    this.ctx = { db, box, logger, agents: this.agents, o };
    const onError = (e: unknown) => logger.error({ err: String(e) }, 'webhook round failed');
    // The loop's round does not wait for its deliveries: each one that ends kicks another round (a new claim).
    this.loop = new RoundLoop(() => this.pump.round(), o.tickMs, onError);
    this.pump = new OutboxPump(
      { claim: (max, now) => this.claim(max, now) },
      new DeliveryPool(DEFAULT_DELIVERY_POOL),
      o.timeoutMs,
      () => this.loop.kick(),
      onError,
    );
  }

  start(): void {
    this.loop.start();
  }

  kick(): void {
    this.loop.kick();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.pump.drain();
    if (this.ownAgents) await this.agents.close();
  }

  /** Starts what is due and the pool has room for, and waits for those deliveries. Returns how many. */
  async deliverDue(now = Date.now()): Promise<number> {
    const started = await this.pump.round(now);
    await Promise.all(started);
    return started.length;
  }

  private async claim(max: number, now: number): Promise<Prepared[]> {
    const claimed = await claimDue(this.db, 'webhook_deliveries', now, LEASE_MS, max);
    return Promise.all(
      claimed.map(async ({ row, attempt }) => {
        const live = await liveHook(this.db, row.webhook_id);
        const d = { id: row.id, webhookId: row.webhook_id, payload: row.payload, attempt };
        return {
          url: live?.url ?? null,
          send: (timeoutMs: number) => attemptDelivery(this.ctx, d, live, timeoutMs),
          defer: (until: number) => deferClaimed(this.db, 'webhook_deliveries', row.id, attempt, until),
        };
      }),
    );
  }
}
