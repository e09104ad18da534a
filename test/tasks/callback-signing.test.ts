// Which secrets a client callback is signed with, delivery by delivery: the owning token's, the one a rotation
// replaced during its window, a first one for a token older than callback secrets — and never a callback sent
// unsigned. Each delivery is checked with the `standardwebhooks` package, as the client's receiver would.
import { Writable } from 'node:stream';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCallbackSecret } from '../../src/auth/callback-secret.ts';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { hashToken, newId } from '../../src/auth/token-secret.ts';
import { TokensRepo } from '../../src/store/repos/tokens.ts';
import { TokenCallbackSigner } from '../../src/tasks/callback-signing.ts';
import { CallbackDispatcher } from '../../src/tasks/callbacks.ts';
import { startReceiver, type Hit, type Receiver } from '../support/receiver.ts';
import { useStore } from '../support/store.ts';

const fresh = useStore();
const box = new SecretBox('callback-signing-test-secret-0123456789');
const logs: string[] = [];
let tokens: TokensRepo;
let rx: Receiver;

beforeAll(async () => {
  tokens = new TokensRepo(fresh.store.db);
  // Answers 500 to the first delivery, then 200.
  rx = await startReceiver({ failFirst: 1 });
});
afterAll(() => rx.close());

function dispatcher(signBox = box): CallbackDispatcher {
  const logger = pino(
    { level: 'info' },
    new Writable({
      write: (c: Buffer, _e, cb) => {
        logs.push(c.toString('utf8'));
        cb();
      },
    }),
  );
  return new CallbackDispatcher({
    db: fresh.store.db,
    logger,
    render: (task) => ({ task_id: task.id }),
    signer: new TokenCallbackSigner(tokens, signBox),
    options: { tickMs: 60_000, backoffBaseMs: 60_000, maxAttempts: 5, allowPrivateNetwork: true },
  });
}

/** A token with `callbackSecret` sealed (none: as a token made before migration 013). */
async function token(callbackSecret?: string): Promise<string> {
  const id = newId('tok');
  await tokens.create({
    id,
    name: id,
    secretHash: hashToken(id),
    prefix: 'tw-x',
    models: null,
    quota: null,
    expiresAt: null,
    ...(callbackSecret ? { callbackSecret: box.seal(callbackSecret) } : {}),
  });
  return id;
}

/** A callback of `tokenId`'s made due now (a new one, or one already attempted made due again). */
async function due(id: string, tokenId: string): Promise<void> {
  const now = Date.now();
  const set = await fresh.store.db
    .updateTable('callbacks')
    .set({ next_at: now })
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(set.numUpdatedRows) > 0) return;
  await fresh.store.db
    .insertInto('callbacks')
    .values({
      id,
      task_id: `task_${id}`,
      token_id: tokenId,
      url: rx.url,
      payload: `{"task_id":"task_${id}"}`,
      state: 'pending',
      attempts: 0,
      next_at: now,
      last_error: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/** Deliver what is due; the hit it made. */
async function deliver(d: CallbackDispatcher): Promise<Hit> {
  const before = rx.hits.length;
  await d.deliverDue();
  expect(rx.hits).toHaveLength(before + 1);
  return rx.hits.at(-1)!;
}

const verifies = (secret: string, hit: Hit) => {
  try {
    new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};

const row = (id: string) =>
  fresh.store.db.selectFrom('callbacks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('callback signing', () => {
  let d: CallbackDispatcher;
  beforeAll(() => void (d = dispatcher()));
  afterAll(() => d.stop());

  it('a rotation with a window: both secrets sign; a retry after the rotation carries the new signature; without a window only the new one', async () => {
    const [a, b, c] = [newCallbackSecret(), newCallbackSecret(), newCallbackSecret()];
    const tok = await token(a);
    await due('cb_rot_1', tok);
    const failed = await deliver(d);
    expect(failed.answered).toBe(500);
    expect(verifies(a, failed)).toBe(true);

    await tokens.rotateCallbackSecret(tok, box.seal(b), Date.now() + 3_600_000);
    await due('cb_rot_1', tok);
    const retried = await deliver(d);
    expect(retried.answered).toBe(200);
    expect(retried.headers['webhook-id']).toBe('cb_rot_1');
    expect(String(retried.headers['webhook-signature']).split(' ')).toHaveLength(2);
    // The client's receiver verifies with the new secret, and with the old one until it has switched.
    expect(verifies(b, retried)).toBe(true);
    expect(verifies(a, retried)).toBe(true);
    expect((await row('cb_rot_1')).state).toBe('delivered');

    await tokens.rotateCallbackSecret(tok, box.seal(c), null);
    await due('cb_rot_2', tok);
    const after = await deliver(d);
    expect(verifies(c, after)).toBe(true);
    expect(verifies(b, after)).toBe(false);
    expect(verifies(a, after)).toBe(false);
  });

  it('the rotated-out secret signs until the end of its window, not after', async () => {
    const [a, b] = [newCallbackSecret(), newCallbackSecret()];
    const tok = await token(a);
    const until = Date.now() + 60_000;
    await tokens.rotateCallbackSecret(tok, box.seal(b), until);
    const signer = new TokenCallbackSigner(tokens, box);
    expect(await signer.secretsFor(tok, until - 1)).toEqual([b, a]);
    expect(await signer.secretsFor(tok, until)).toEqual([b]);
  });

  it('a token older than callback secrets gets one at its first callback: sealed, kept against a later one, never issued until a rotation', async () => {
    const tok = await token();
    expect((await tokens.get(tok))?.callbackSecretIssuedAt).toBeNull();
    const one = await new TokenCallbackSigner(tokens, box).secretsFor(tok);
    expect(one).toHaveLength(1);
    expect(one[0]).toMatch(/^whsec_/);
    // Another instance giving it one a moment later (it read none before this one's write) keeps the first.
    await tokens.setCallbackSecretIfNone(tok, box.seal(newCallbackSecret()));
    expect(await new TokenCallbackSigner(tokens, box).secretsFor(tok)).toEqual(one);
    const stored = await fresh.store.db
      .selectFrom('tokens')
      .select(['callback_secret', 'callback_secret_issued_at'])
      .where('id', '=', tok)
      .executeTakeFirstOrThrow();
    expect(stored.callback_secret).toMatch(/^v1:/);
    expect(stored.callback_secret).not.toContain(one[0]!.slice('whsec_'.length));
    // Nobody was shown it: the operator sees that a rotation is needed to hand one to the client.
    expect((await tokens.get(tok))?.callbackSecretIssuedAt).toBeNull();

    const issued = newCallbackSecret();
    await tokens.rotateCallbackSecret(tok, box.seal(issued), null);
    expect((await tokens.get(tok))?.callbackSecretIssuedAt).toEqual(expect.any(Number));
    await due('cb_legacy', tok);
    expect(verifies(issued, await deliver(d))).toBe(true);
  });

  it('a secret sealed under another TOLLWAY_SECRET: nothing is sent unsigned, the callback waits; a rotation lets it go', async () => {
    const secret = newCallbackSecret();
    const tok = await token(secret);
    const otherBox = new SecretBox('another-deployment-secret-0123456789');
    const changed = dispatcher(otherBox);
    try {
      await due('cb_unreadable', tok);
      const before = rx.hits.length;
      await changed.deliverDue();
      expect(rx.hits).toHaveLength(before);
      const waiting = await row('cb_unreadable');
      expect(waiting.state).toBe('pending');
      expect(waiting.last_error).toMatch(
        /^unsigned: the callback secret of token tok_\w+ cannot be read \(was TOLLWAY_SECRET changed\?\); rotate it$/,
      );

      const fresh2 = newCallbackSecret();
      await tokens.rotateCallbackSecret(tok, otherBox.seal(fresh2), Date.now() + 3_600_000);
      await due('cb_unreadable', tok);
      await changed.deliverDue();
      const hit = rx.hits.at(-1)!;
      expect(rx.hits).toHaveLength(before + 1);
      // The previous one (unreadable under this secret) is left out; the new one signs.
      expect(String(hit.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(verifies(fresh2, hit)).toBe(true);
      expect(logs.join('')).not.toContain(secret);
      expect(logs.join('')).not.toContain(fresh2);
    } finally {
      await changed.stop();
    }
  });

  it('the callback of an unknown token is not sent', async () => {
    await due('cb_orphan', 'tok_gone');
    const before = rx.hits.length;
    await d.deliverDue();
    expect(rx.hits).toHaveLength(before);
    expect((await row('cb_orphan')).last_error).toBe('unsigned: token tok_gone is unknown');
  });

  it('no secret reaches a log line', () => {
    expect(logs.some((l) => l.includes('callback delivered'))).toBe(true);
    expect(logs.join('')).not.toMatch(/whsec_/);
  });
});
