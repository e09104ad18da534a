// One attempt of a claimed alert delivery (webhook_deliveries): POSTed signed with its webhook's own secret (Standard
// Webhooks, net/signed-post.ts), its outcome recorded on the row — delivered on 2xx, otherwise due again after the
// back-off until the attempts run out. The dispatcher's rounds (dispatcher.ts) and an operator's test or redelivery
// (sendClaimedNow) both send through here, so a test proves exactly what real events get.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { SecretBox } from '../auth/secret-box.ts';
import type { SafeAgents } from '../net/safe-agent.ts';
import { nextTry, postSigned } from '../net/signed-post.ts';
import type { Database } from '../store/schema.ts';

/** How long a claimed attempt is its claimer's before another instance may take it (it died mid-send). */
export const LEASE_MS = 60_000;

export interface AttemptContext {
  db: Kysely<Database>;
  box: SecretBox;
  logger: Logger;
  agents: SafeAgents;
  o: { backoffBaseMs: number; maxAttempts: number; allowPrivateNetwork: boolean };
}

/** The claimed row's fields an attempt needs. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  payload: string;
  attempt: number;
}

/** The webhook a claimed row goes to, when it is still there and enabled. */
export async function liveHook(
  db: Kysely<Database>,
  webhookId: string,
): Promise<{ url: string; secret: string } | null> {
  const hook = await db
    .selectFrom('webhooks')
    .select(['url', 'secret', 'enabled'])
    .where('id', '=', webhookId)
    .executeTakeFirst();
  return hook && Number(hook.enabled) === 1 ? hook : null;
}

export async function attemptDelivery(
  c: AttemptContext,
  d: ClaimedDelivery,
  hook: { url: string; secret: string } | null,
  timeoutMs: number,
): Promise<{ timedOut: boolean }> {
  const now = () => Date.now();
  if (!hook) {
    // Disabled (or deleted) since the event: not sent, and said so.
    await c.db
      .updateTable('webhook_deliveries')
      .set({ state: 'failed', last_error: 'not sent: the webhook is disabled', updated_at: now() })
      .where('id', '=', d.id)
      .execute();
    return { timedOut: false };
  }
  const outcome = await postSigned({
    url: hook.url,
    id: d.id,
    body: d.payload,
    secrets: async () => [openSecret(c.box, hook.secret, d.webhookId)],
    userAgent: 'tollway-webhooks/1',
    agents: c.agents,
    allowPrivateNetwork: c.o.allowPrivateNetwork,
    timeoutMs,
  });
  const at = now();
  if (outcome.error === null) {
    await c.db
      .updateTable('webhook_deliveries')
      .set({ state: 'delivered', last_status: outcome.status, last_error: null, delivered_at: at, updated_at: at })
      .where('id', '=', d.id)
      .execute();
    return { timedOut: false };
  }
  const next = nextTry(d.attempt, outcome, c.o, at);
  const error = outcome.error.slice(0, 500);
  await c.db
    .updateTable('webhook_deliveries')
    .set(
      next === null
        ? { state: 'failed', last_status: outcome.status, last_error: error, updated_at: at }
        : { next_at: next, last_status: outcome.status, last_error: error, updated_at: at },
    )
    .where('id', '=', d.id)
    .execute();
  c.logger.warn(
    { webhook_id: d.webhookId, delivery_id: d.id, attempt: d.attempt, error, gave_up: next === null },
    'webhook delivery failed',
  );
  return { timedOut: outcome.timedOut === true };
}

/** An attempt its caller claimed outside the rounds (a test event, a redelivery): sent at once, its outcome recorded. */
export async function sendClaimedNow(c: AttemptContext, d: ClaimedDelivery, timeoutMs: number): Promise<void> {
  await attemptDelivery(c, d, await liveHook(c.db, d.webhookId), timeoutMs);
}

function openSecret(box: SecretBox, sealed: string, webhookId: string): string {
  try {
    return box.open(sealed);
  } catch {
    throw new Error(
      `unsigned: the secret of webhook ${webhookId} cannot be read (was TOLLWAY_SECRET changed?); recreate the webhook`,
    );
  }
}
