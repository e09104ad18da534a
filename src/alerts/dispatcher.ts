// Delivers the alert outbox (webhook_deliveries): due rows are claimed by compare-and-set (store/repos/outbox-claim.ts,
// a lease, so one instance sends a given attempt), POSTed signed with the webhook's own secret (Standard Webhooks),
// marked delivered on 2xx, otherwise retried with back-off until the attempts run out — the same signed POST and
// retry rule as client callbacks (net/signed-post.ts), in the same kind of bounded pool that never waits for the
// slowest row, with a share per receiver host and a breaker per host (net/outbox-pump.ts). At-least-once: receivers
// dedupe on `webhook-id`.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { SecretBox } from '../auth/secret-box.ts';
import { createSafeAgents, type SafeAgents } from '../net/safe-agent.ts';
import { DEFAULT_DELIVERY_POOL, DeliveryPool } from '../net/delivery-pool.ts';
import { OutboxPump, type Prepared } from '../net/outbox-pump.ts';
import { nextTry, postSigned } from '../net/signed-post.ts';
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

/** How long a claimed attempt is this instance's before another may take it (it died mid-send). */
const LEASE_MS = 60_000;

export class WebhookDispatcher {
  private readonly loop: RoundLoop;
  private readonly agents: SafeAgents;
  private readonly ownAgents: boolean;
  private readonly pump: OutboxPump;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly box: SecretBox,
    private readonly logger: Logger,
    private readonly o: WebhookDeliveryOptions,
    agents?: SafeAgents,
  ) {
    this.agents = agents ?? createSafeAgents();
    this.ownAgents = !agents;
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
        const hook = await this.db
          .selectFrom('webhooks')
          .select(['url', 'secret', 'enabled'])
          .where('id', '=', row.webhook_id)
          .executeTakeFirst();
        const live = hook && Number(hook.enabled) === 1 ? hook : null;
        return {
          url: live?.url ?? null,
          send: (timeoutMs: number) => this.deliverOne(row.id, row.webhook_id, row.payload, attempt, live, timeoutMs),
          defer: (until: number) => deferClaimed(this.db, 'webhook_deliveries', row.id, attempt, until),
        };
      }),
    );
  }

  private async deliverOne(
    id: string,
    webhookId: string,
    payload: string,
    attempt: number,
    hook: { url: string; secret: string } | null,
    timeoutMs: number,
  ): Promise<{ timedOut: boolean }> {
    const now = () => Date.now();
    if (!hook) {
      // Disabled (or deleted) since the event: not sent, and said so.
      await this.db
        .updateTable('webhook_deliveries')
        .set({ state: 'failed', last_error: 'not sent: the webhook is disabled', updated_at: now() })
        .where('id', '=', id)
        .execute();
      return { timedOut: false };
    }
    const outcome = await postSigned({
      url: hook.url,
      id,
      body: payload,
      secrets: async () => [this.openSecret(hook.secret, webhookId)],
      userAgent: 'tollway-webhooks/1',
      agents: this.agents,
      allowPrivateNetwork: this.o.allowPrivateNetwork,
      timeoutMs,
    });
    const at = now();
    if (outcome.error === null) {
      await this.db
        .updateTable('webhook_deliveries')
        .set({ state: 'delivered', last_status: outcome.status, last_error: null, delivered_at: at, updated_at: at })
        .where('id', '=', id)
        .execute();
      return { timedOut: false };
    }
    const next = nextTry(attempt, outcome, this.o, at);
    const error = outcome.error.slice(0, 500);
    await this.db
      .updateTable('webhook_deliveries')
      .set(
        next === null
          ? { state: 'failed', last_status: outcome.status, last_error: error, updated_at: at }
          : { next_at: next, last_status: outcome.status, last_error: error, updated_at: at },
      )
      .where('id', '=', id)
      .execute();
    this.logger.warn(
      { webhook_id: webhookId, delivery_id: id, attempt, error, gave_up: next === null },
      'webhook delivery failed',
    );
    return { timedOut: outcome.timedOut === true };
  }

  private openSecret(sealed: string, webhookId: string): string {
    try {
      return this.box.open(sealed);
    } catch {
      throw new Error(
        `unsigned: the secret of webhook ${webhookId} cannot be read (was TOLLWAY_SECRET changed?); recreate the webhook`,
      );
    }
  }
}
