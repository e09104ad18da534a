// A token's callback secret through the admin API, as an operator and a client live with it: shown once at creation,
// the client verifies its task callbacks with it (the `standardwebhooks` package, as the client's receiver), another
// client's secret verifies none of them; a rotation hands out a new one while the old one keeps verifying for its
// window; never shown in a list, an audit line or a log line. On the store of the test run (SQLite, or PostgreSQL).
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectB } from '../../support/error-shapes.ts';
import { useHarness } from '../../support/harness.ts';
import { startReceiver, type Hit, type Receiver } from '../../support/receiver.ts';
import { call, type TaskData, vidxHarness } from '../../support/vidx.ts';
import { eventually } from '../../support/wait.ts';

const t = useHarness(vidxHarness({ env: { TOLLWAY_ALLOW_PRIVATE_NETWORK: '1' } }));
const T2V = '/vidx/v1/videos/text2video';
const DAY = 86_400_000;

type Created = { id: string; token: string; callback_secret: string };
type View = {
  id: string;
  callback_secret_issued_at: number | null;
  previous_callback_secret_until: number | null;
  created_at: number;
};
type Rotated = View & { callback_secret: string };

let rx: Receiver;
beforeAll(async () => void (rx = await startReceiver({ path: '/hooks' })));
afterAll(() => rx.close());

async function create(name: string): Promise<Created> {
  const r = await t.h.admin('/admin/tokens', { method: 'POST', json: { name } });
  expect(r.status).toBe(201);
  return (await r.json()) as Created;
}

async function rotate(id: string, body?: unknown): Promise<Rotated> {
  const r = await t.h.admin(`/admin/tokens/${id}/callback-secret/rotate`, {
    method: 'POST',
    ...(body === undefined ? {} : { json: body }),
  });
  expect(r.status).toBe(200);
  return (await r.json()) as Rotated;
}

/** A task of `token` with a callback; the callback's delivery once it is in. */
async function callbackOf(token: string): Promise<Hit> {
  const c = await call<TaskData>(t.h, token, 'POST', T2V, {
    model_name: 'vidx-v2-5',
    prompt: 'call me back',
    callback_url: rx.url,
  });
  expect(c.status).toBe(200);
  const id = c.body.data.task_id;
  // Bounded generously: a loaded machine may take more than until()'s few seconds for a task and its callback.
  expect(await eventually(() => rx.hits.some((h) => h.headers['webhook-id'] === `cb_${id}`), 30_000)).toBe(true);
  return rx.hits.find((h) => h.headers['webhook-id'] === `cb_${id}`)!;
}

const verifies = (secret: string, hit: Hit) => {
  try {
    new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};

// Each test waits for tasks and their callbacks: on a loaded machine more than the default 30 s may pass.
describe('callback secrets', { timeout: 120_000 }, () => {
  const shown: string[] = [];

  it("creation shows it once; the client verifies its callbacks with it, another client's secret verifies none", async () => {
    const alice = await create('alice');
    const bob = await create('bob');
    shown.push(alice.callback_secret, bob.callback_secret);
    expect(alice.callback_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(alice.callback_secret).not.toBe(bob.callback_secret);

    const hit = await callbackOf(alice.token);
    expect(new Webhook(alice.callback_secret).verify(hit.body, hit.headers as Record<string, string>)).toMatchObject({
      task_status: 'succeed',
    });
    expect(() => new Webhook(bob.callback_secret).verify(hit.body, hit.headers as Record<string, string>)).toThrow(
      'No matching signature found',
    );
    expect(verifies(bob.callback_secret, await callbackOf(bob.token))).toBe(true);

    const view = (await (await t.h.admin(`/admin/tokens/${alice.id}`)).json()) as View;
    expect(view).toMatchObject({ callback_secret_issued_at: view.created_at, previous_callback_secret_until: null });
  });

  it('a rotation: the new secret verifies at once, the old one too for the default window (24 h), then a rotation without a window drops it', async () => {
    const carol = await create('carol');
    const before = Date.now();
    const r = await rotate(carol.id);
    shown.push(carol.callback_secret, r.callback_secret);
    expect(r.callback_secret).toMatch(/^whsec_/);
    expect(r.callback_secret).not.toBe(carol.callback_secret);
    expect(r.previous_callback_secret_until).toBeGreaterThanOrEqual(before + DAY);
    expect(r.previous_callback_secret_until).toBeLessThanOrEqual(Date.now() + DAY);
    expect(r.callback_secret_issued_at).toBeGreaterThanOrEqual(before);

    const during = await callbackOf(carol.token);
    expect(verifies(r.callback_secret, during)).toBe(true);
    expect(verifies(carol.callback_secret, during)).toBe(true);

    const r2 = await rotate(carol.id, { grace_ms: 0 });
    shown.push(r2.callback_secret);
    expect(r2.previous_callback_secret_until).toBeNull();
    const after = await callbackOf(carol.token);
    expect(verifies(r2.callback_secret, after)).toBe(true);
    expect(verifies(r.callback_secret, after)).toBe(false);
    expect(verifies(carol.callback_secret, after)).toBe(false);
  });

  it('refuses a bad window, an unknown field, an unknown token and a revoked one', async () => {
    const dave = await create('dave');
    shown.push(dave.callback_secret);
    const tooLong = await t.h.admin(`/admin/tokens/${dave.id}/callback-secret/rotate`, {
      method: 'POST',
      json: { grace_ms: 8 * DAY },
    });
    expect((await expectB(tooLong, 400, 'invalid_parameter')).error.param).toBe('grace_ms');
    const unknown = await t.h.admin(`/admin/tokens/${dave.id}/callback-secret/rotate`, {
      method: 'POST',
      json: { secret: 'whsec_AAAA' },
    });
    expect((await expectB(unknown, 400, 'invalid_parameter')).error.param).toBe('secret');
    await expectB(
      await t.h.admin('/admin/tokens/tok_nope/callback-secret/rotate', { method: 'POST', json: {} }),
      404,
      'not_found',
    );
    expect((await t.h.admin(`/admin/tokens/${dave.id}`, { method: 'DELETE' })).status).toBe(200);
    await expectB(
      await t.h.admin(`/admin/tokens/${dave.id}/callback-secret/rotate`, { method: 'POST', json: {} }),
      409,
      'conflict',
    );
  });

  it('never shown again: not in the list, one token, the audit lines or the log', async () => {
    const list = await (await t.h.admin('/admin/tokens')).text();
    const audit = await (await t.h.admin('/admin/audit?limit=1000')).text();
    const logs = t.h.logs.join('');
    expect(shown.length).toBeGreaterThanOrEqual(6);
    for (const text of [list, audit, logs]) {
      expect(text).not.toContain('whsec_');
      for (const s of shown) expect(text).not.toContain(s.slice('whsec_'.length));
    }
    expect(audit).toContain('token.callback_secret.rotate');
  });
});
