// Client completion callbacks (family A `callback_url`). A durable outbox in the callbacks table:
//  1. enqueue — every terminal family A task with a callback_url gets exactly one row (id `cb_<task id>`,
//     the primary key makes the enqueue exactly-once across instances), payload rendered at that moment;
//  2. deliver — due rows are claimed by compare-and-set on next_at (a short lease), POSTed signed with the owning
//     token's callback secret (Standard Webhooks; callback-signing.ts), marked delivered on 2xx, otherwise retried
//     with exponential back-off up to maxAttempts.
// Delivery is at-least-once (a crash after the POST and before the mark re-sends); receivers dedupe on
// `webhook-id`. Loopback/private targets are refused at connect time unless the operator allows them.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { request } from 'undici';
import { signCallback } from '../auth/callback-secret.ts';
import { createSafeAgents, findForbidden, type SafeAgents } from '../net/safe-agent.ts';
import { storedFamily, toTaskRecord } from '../store/repos/tasks.ts';
import type { Database } from '../store/schema.ts';
import { isUniqueViolation } from '../store/store-errors.ts';
import { CallbackSigningError, type CallbackSigner } from './callback-signing.ts';
import type { TaskRecord } from './types.ts';

export interface CallbackOptions {
  tickMs: number;
  backoffBaseMs: number;
  maxAttempts: number;
  allowPrivateNetwork: boolean;
  /** Per-delivery timeout. */
  timeoutMs?: number;
}

export interface CallbackDeps {
  db: Kysely<Database>;
  logger: Logger;
  options: CallbackOptions;
  /** The body sent for a finished task (family A: the vendor's task data with our ids). */
  render(task: TaskRecord): unknown;
  /** The secrets each delivery is signed with: its token's. */
  signer: CallbackSigner;
  agents?: SafeAgents;
}

/** Only tasks finished in this window are looked at for enqueueing (bounds the scan). */
const ENQUEUE_WINDOW_MS = 24 * 3600_000;
const CLAIM_MS = 60_000;
const MAX_BACKOFF_MS = 3600_000;

export class CallbackDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = true;
  private kicked = false;
  private readonly agents: SafeAgents;
  private readonly ownAgents: boolean;

  constructor(private readonly deps: CallbackDeps) {
    this.agents = deps.agents ?? createSafeAgents();
    this.ownAgents = !deps.agents;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.running) await this.running;
    if (this.ownAgents) await this.agents.close();
  }

  /** Something may have finished: run a round soon instead of waiting for the next tick. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.kicked = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.tick()
        .catch((e) => this.deps.logger.error({ err: String(e) }, 'callback round failed'))
        .finally(() => {
          this.running = null;
          const again = this.kicked;
          this.kicked = false;
          if (!this.stopped) this.schedule(again ? 0 : this.deps.options.tickMs);
        });
    }, ms);
    this.timer.unref?.();
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
      .where('family', '=', storedFamily('vidx'))
      .where('state', 'in', ['succeeded', 'failed', 'cancelled'])
      .where('callback_url', 'is not', null)
      .where('finished_at', '>', now - ENQUEUE_WINDOW_MS)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('callbacks').select('callbacks.id').whereRef('callbacks.task_id', '=', 'tasks.id'))))
      .limit(200)
      .execute();
    let n = 0;
    for (const r of rows) {
      const t = toTaskRecord(r);
      try {
        await this.deps.db
          .insertInto('callbacks')
          .values({ id: `cb_${t.id}`, task_id: t.id, token_id: t.tokenId, url: t.callbackUrl!, payload: JSON.stringify(this.deps.render(t)), state: 'pending', attempts: 0, next_at: now, last_error: null, created_at: now, updated_at: now })
          .execute();
        n++;
      } catch (e) {
        if (!isUniqueViolation(e)) throw e; // another instance enqueued it first
      }
    }
    return n;
  }

  async deliverDue(now = Date.now()): Promise<number> {
    const due = await this.deps.db.selectFrom('callbacks').selectAll().where('state', '=', 'pending').where('next_at', '<=', now).orderBy('next_at').limit(50).execute();
    const claimed = [];
    for (const c of due) {
      // Compare-and-set on next_at: only one instance wins a given attempt.
      const r = await this.deps.db
        .updateTable('callbacks')
        .set({ next_at: now + CLAIM_MS, attempts: Number(c.attempts) + 1, updated_at: now })
        .where('id', '=', c.id)
        .where('state', '=', 'pending')
        .where('next_at', '=', c.next_at)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 1) claimed.push({ ...c, attempts: Number(c.attempts) + 1 });
    }
    await Promise.all(claimed.map((c) => this.deliverOne(c.id, c.url, c.payload, c.attempts, c.task_id, c.token_id)));
    return claimed.length;
  }

  private async deliverOne(id: string, url: string, payload: string, attempt: number, taskId: string, tokenId: string): Promise<void> {
    const o = this.deps.options;
    const ts = Math.floor(Date.now() / 1000);
    let error: string | null = null;
    try {
      // Signed at each attempt: a retry after a rotation carries the new secret's signature.
      const secrets = await this.deps.signer.secretsFor(tokenId);
      const res = await request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'tollway-callbacks/1',
          'webhook-id': id,
          'webhook-timestamp': String(ts),
          'webhook-signature': signCallback(secrets, id, ts, payload),
        },
        body: payload,
        dispatcher: o.allowPrivateNetwork ? this.agents.permissive : this.agents.strict,
        headersTimeout: o.timeoutMs ?? 10_000,
        bodyTimeout: o.timeoutMs ?? 10_000,
      });
      await res.body.dump().catch(() => undefined);
      if (res.statusCode < 200 || res.statusCode >= 300) error = `HTTP ${res.statusCode}`;
    } catch (e) {
      const forbidden = findForbidden(e);
      error = e instanceof CallbackSigningError ? e.message : forbidden ? `refused: the callback host resolves to a ${forbidden.reason}` : `delivery failed: ${(e as Error)?.message ?? String(e)}`;
    }
    const now = Date.now();
    if (error === null) {
      await this.deps.db.updateTable('callbacks').set({ state: 'delivered', last_error: null, updated_at: now }).where('id', '=', id).execute();
      this.deps.logger.info({ task_id: taskId, callback_id: id, attempt }, 'callback delivered');
      return;
    }
    const giveUp = attempt >= o.maxAttempts || error.startsWith('refused:');
    const next = now + Math.min(o.backoffBaseMs * 2 ** (attempt - 1), MAX_BACKOFF_MS);
    await this.deps.db
      .updateTable('callbacks')
      .set(giveUp ? { state: 'failed', last_error: error, updated_at: now } : { next_at: next, last_error: error, updated_at: now })
      .where('id', '=', id)
      .execute();
    this.deps.logger.warn({ task_id: taskId, callback_id: id, attempt, error, gave_up: giveUp }, 'callback delivery failed');
  }
}
