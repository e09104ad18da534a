// Staff keys meet the admin key's guard: a wrong staff key is counted against its address on the same counter as
// wrong admin keys (five a minute, then 429 for every key, a live staff key included); a known key that is expired
// or revoked is refused as such and guesses nothing, so it is not counted; an expired key opens no console session.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';

const t = useHarness();

const bearer = (key: string) => fetch(`${t.h.url}/admin/logs`, { headers: { authorization: `Bearer ${key}` } });
const signIn = (key: string) =>
  fetch(`${t.h.url}/console/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key }),
  });

describe('wrong staff keys', () => {
  it('an expired key is refused without counting; wrong staff keys lock the address out', async () => {
    const made = await t.h.admin('/admin/users', {
      method: 'POST',
      json: { name: 'Guarded', email: 'guarded@staff.test', role: 'viewer' },
    });
    const p = (await made.json()) as { id: string; key: { id: string; secret: string } };
    const spare = (await (await t.h.admin(`/admin/users/${p.id}/keys`, { method: 'POST' })).json()) as {
      id: string;
      secret: string;
    };
    await t.h.store.db
      .updateTable('staff_keys')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', spare.id)
      .execute();
    // Eight refusals of known keys: none counted, the live key still works.
    for (let i = 0; i < 4; i++) expect((await bearer(spare.secret)).status).toBe(401);
    for (let i = 0; i < 4; i++) {
      const r = await signIn(spare.secret);
      expect(r.status).toBe(401);
      expect(r.headers.get('set-cookie')).toBeNull();
    }
    expect((await bearer(p.key.secret)).status).toBe(200);
    // Five unknown staff keys: the address is locked out, for the live staff key and the admin key too.
    for (let i = 0; i < 5; i++) expect((await bearer(`tws-guess${i}${'x'.repeat(38)}`)).status).toBe(403);
    expect((await bearer(p.key.secret)).status).toBe(429);
    expect((await bearer(t.h.adminKey)).status).toBe(429);
    expect((await signIn(p.key.secret)).status).toBe(429);
  });
});
