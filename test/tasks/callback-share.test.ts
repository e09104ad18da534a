// Issue 58 item 8: one tenant's silent receiver must not delay everyone's callbacks. 200 callbacks of one tenant go to
// a receiver that accepts connections and never answers; another tenant's callback, due after them, is delivered while
// the silent receiver still holds its (few) deliveries: the outbox claims again as soon as it has a free slot, and one
// receiver host holds at most its share. Ordering and counts only: no timing threshold.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { newCallbackSecret } from '../../src/auth/callback-secret.ts';
import { hashToken, newId } from '../../src/auth/token-secret.ts';
import { DEFAULT_DELIVERY_POOL } from '../../src/net/delivery-pool.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import { TokenCallbackSigner } from '../../src/tasks/callback-signing.ts';
import { CallbackDispatcher } from '../../src/tasks/callbacks.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { useStore } from '../support/store.ts';
import { until } from '../support/wait.ts';

const fresh = useStore();
const box = new SecretBox('callback-share-test-secret-0123456789');
let rx: Receiver;
let silent: Server;
let silentUrl: string;
const sockets = new Set<Socket>();
let peakOpen = 0;
/** Set when the test ends: the silent receiver then drops every connection, so the deliveries in flight end. */
let hangUp = false;

beforeAll(async () => {
  rx = await startReceiver();
  // Accepts, reads, never answers.
  silent = createServer((s) => {
    if (hangUp) return void s.destroy();
    sockets.add(s);
    peakOpen = Math.max(peakOpen, sockets.size);
    s.on('close', () => sockets.delete(s));
    s.resume();
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => silent.close(r));
  await rx.close();
});

async function token(): Promise<string> {
  const id = newId('tok');
  const tokens = new TokensRepo(fresh.store.db);
  await tokens.create({
    id,
    name: id,
    secretHash: hashToken(id),
    prefix: 'tw-x',
    models: null,
    quota: null,
    expiresAt: null,
    callbackSecret: box.seal(newCallbackSecret()),
  });
  return id;
}

async function callback(id: string, tokenId: string, url: string, nextAt: number): Promise<void> {
  await fresh.store.db
    .insertInto('callbacks')
    .values({
      id,
      task_id: `task_${id}`,
      token_id: tokenId,
      url,
      payload: `{"task_id":"task_${id}"}`,
      state: 'pending',
      attempts: 0,
      next_at: nextAt,
      last_error: null,
      created_at: nextAt,
      updated_at: nextAt,
    })
    .execute();
}

describe("one tenant's silent receiver", () => {
  it("200 callbacks to a receiver that never answers: another tenant's callback due after them is delivered while they still wait", async () => {
    const noisy = await token();
    const quiet = await token();
    const at = Date.now() - 10_000;
    for (let i = 0; i < 200; i++) await callback(`cb_silent_${i}`, noisy, silentUrl, at + i);
    await callback('cb_quiet', quiet, rx.url, at + 500);
    const d = new CallbackDispatcher({
      db: fresh.store.db,
      logger: pino({ level: 'silent' }),
      render: (task) => ({ task_id: task.id }),
      signer: new TokenCallbackSigner(new TokensRepo(fresh.store.db), box),
      // A receiver may take long to answer: the silent one never does within this test.
      options: { tickMs: 60_000, backoffBaseMs: 60_000, maxAttempts: 5, allowPrivateNetwork: true, timeoutMs: 600_000 },
    });
    d.start();
    try {
      await until(
        () => rx.hits.some((h) => h.headers['webhook-id'] === 'cb_quiet'),
        "the quiet tenant's callback arrives",
      );
      // None of the silent receiver's deliveries has ended: the quiet one did not wait for them.
      const ended = await fresh.store.db
        .selectFrom('callbacks')
        .select('id')
        .where('id', 'like', 'cb_silent_%')
        .where('last_error', 'is not', null)
        .execute();
      expect(ended).toEqual([]);
      // The silent host holds at most its share of the deliveries in flight, and its deferred rows kept their attempts.
      expect(peakOpen).toBeGreaterThan(0);
      expect(peakOpen).toBeLessThanOrEqual(DEFAULT_DELIVERY_POOL.perHost);
      const attempted = await fresh.store.db
        .selectFrom('callbacks')
        .select('id')
        .where('id', 'like', 'cb_silent_%')
        .where('attempts', '>', 0)
        .execute();
      expect(attempted.length).toBe(DEFAULT_DELIVERY_POOL.perHost);
      const quiet_ = await fresh.store.db
        .selectFrom('callbacks')
        .select('state')
        .where('id', '=', 'cb_quiet')
        .executeTakeFirstOrThrow();
      await until(
        async () =>
          (
            await fresh.store.db
              .selectFrom('callbacks')
              .select('state')
              .where('id', '=', 'cb_quiet')
              .executeTakeFirstOrThrow()
          ).state === 'delivered',
        'marked delivered',
      );
      expect(quiet_).toBeDefined();
    } finally {
      hangUp = true;
      for (const s of sockets) s.destroy();
      await d.stop();
    }
  });
});
