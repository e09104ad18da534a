// A console session is bound to the admin key that opened it: after TOLLWAY_ADMIN_KEY is changed (the answer to a
// leaked key: set the new key, restart every instance) the sessions the old key opened are refused, reads and changes.
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../../src/process-life.ts';
import { SECRET, useHarness } from '../../support/harness.ts';

const t = useHarness();
const NEW_KEY = 'rotated-admin-key-ffffffffffffffff';
let rotated: Gateway | undefined;
afterAll(async () => {
  await rotated?.close();
});

describe('admin key rotation', () => {
  it('a console session opened with the old admin key must not outlive the rotation', async () => {
    const signIn = await fetch(`${t.h.url}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: t.h.adminKey }),
    });
    expect(signIn.status).toBe(201);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const { csrf } = (await signIn.json()) as { csrf: string };

    // The operator rotates the admin key: the gateway is restarted with a new TOLLWAY_ADMIN_KEY on the same store.
    await t.h.gw.close();
    rotated = await startGateway(t.h.config, {
      adminKey: NEW_KEY,
      secret: SECRET,
      store: t.h.store,
      logStream: new Writable({ write: (_c, _e, cb) => cb() }),
    });
    const url = (await rotated.app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');

    // Sanity: the old key itself is refused now, the new key works.
    expect((await fetch(`${url}/admin/tokens`, { headers: { authorization: `Bearer ${t.h.adminKey}` } })).status).toBe(
      403,
    );
    expect((await fetch(`${url}/admin/tokens`, { headers: { authorization: `Bearer ${NEW_KEY}` } })).status).toBe(200);

    // The session opened with the old key: refused for reads and for changes.
    const read = await fetch(`${url}/admin/tokens`, { headers: { cookie } });
    const create = await fetch(`${url}/admin/tokens`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'attacker-token' }),
    });
    expect(read.status).toBe(401);
    expect(create.status).toBe(401);
    // A session opened with the new key works.
    const again = await fetch(`${url}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: NEW_KEY }),
    });
    expect(again.status).toBe(201);
    const fresh = again.headers.get('set-cookie')!.split(';')[0]!;
    expect((await fetch(`${url}/admin/tokens`, { headers: { cookie: fresh } })).status).toBe(200);
  });
});
