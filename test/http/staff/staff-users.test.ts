// Staff people and their personal keys through the real server and store (run on both dialects): the first key is
// shown once and stored only hashed; an expired, rotated or revoked key, or a disabled person's, is refused; audit
// lines name the person and the key; bad input changes nothing.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';

const t = useHarness();

type Key = { id: string; secret?: string; prefix: string; state: string; expires_at: number };
type Person = { id: string; name: string; email: string; role: string; disabled: boolean; key: Key; keys?: Key[] };

let seq = 0;
async function newPerson(role = 'operator', extra: Record<string, unknown> = {}): Promise<Person> {
  seq++;
  const r = await t.h.admin('/admin/users', {
    method: 'POST',
    json: { name: `Person ${seq}`, email: `p${seq}@staff.test`, role, ...extra },
  });
  expect(r.status).toBe(201);
  return (await r.json()) as Person;
}

const asKey = (key: string, path: string, init: RequestInit & { json?: unknown } = {}) =>
  t.h.fetch(path, { ...init, token: key });

async function auditOf(person: string) {
  const r = await t.h.admin(`/admin/audit?person=${person}`);
  expect(r.status).toBe(200);
  type Line = { action: string; target: string; person: { id: string; name: string } | null; key_id: string | null };
  return ((await r.json()) as { data: Line[] }).data;
}

describe('staff people and keys', () => {
  it('creates a person with a first key shown once, stored only as its SHA-256', async () => {
    const p = await newPerson('viewer', { expires_in_days: 30 });
    expect(p).toMatchObject({ name: `Person ${seq}`, email: `p${seq}@staff.test`, role: 'viewer', disabled: false });
    expect(p.key.secret).toMatch(/^tws-[A-Za-z0-9]{43}$/);
    expect(p.key.state).toBe('live');
    expect(p.key.expires_at - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const rows = await t.h.store.db.selectFrom('staff_keys').selectAll().where('person_id', '=', p.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.secret_hash).toBe(createHash('sha256').update(p.key.secret!).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(p.key.secret);
    // Never again: not in the person's read, not in the list.
    for (const path of [`/admin/users/${p.id}`, '/admin/users', `/admin/audit?target=${p.id}`]) {
      const text = await (await t.h.admin(path)).text();
      expect(text).toContain(p.id);
      expect(text).not.toContain(p.key.secret);
    }
    const read = (await (await t.h.admin(`/admin/users/${p.id}`)).json()) as Person;
    expect(read.keys!.map((k) => k.id)).toEqual([p.key.id]);
    expect(read.keys![0]).not.toHaveProperty('secret');
    // The key works at once, as its role allows.
    expect((await asKey(p.key.secret!, '/admin/logs')).status).toBe(200);
  });

  it('refuses a key past its expiry', async () => {
    const p = await newPerson();
    await t.h.store.db
      .updateTable('staff_keys')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', p.key.id)
      .execute();
    const r = await asKey(p.key.secret!, '/admin/tokens');
    expect(r.status).toBe(401);
    expect(await r.text()).toContain('expired');
    const read = (await (await t.h.admin(`/admin/users/${p.id}`)).json()) as Person;
    expect(read.keys![0]!.state).toBe('expired');
  });

  it('rotation gives a new key shown once and invalidates the old one at once; revocation ends a key', async () => {
    const p = await newPerson();
    const r = await t.h.admin(`/admin/users/${p.id}/keys/${p.key.id}/rotate`, { method: 'POST' });
    expect(r.status).toBe(201);
    const next = (await r.json()) as Key;
    expect(next.secret).toMatch(/^tws-/);
    expect(next.id).not.toBe(p.key.id);
    const old = await asKey(p.key.secret!, '/admin/tokens');
    expect(old.status).toBe(401);
    expect(await old.text()).toContain('revoked or rotated');
    expect((await asKey(next.secret!, '/admin/tokens')).status).toBe(200);
    // The old key cannot be rotated twice.
    expect((await t.h.admin(`/admin/users/${p.id}/keys/${p.key.id}/rotate`, { method: 'POST' })).status).toBe(409);
    // Several keys per person; revoking one leaves the others.
    const second = (await (
      await t.h.admin(`/admin/users/${p.id}/keys`, { method: 'POST', json: { name: 'laptop', expires_in_days: 7 } })
    ).json()) as Key;
    expect((await t.h.admin(`/admin/users/${p.id}/keys/${next.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await asKey(next.secret!, '/admin/tokens')).status).toBe(401);
    expect((await asKey(second.secret!, '/admin/tokens')).status).toBe(200);
  });

  it('a role change applies at once; a disabled person is refused, by key and by console session', async () => {
    const p = await newPerson('viewer');
    expect((await asKey(p.key.secret!, '/admin/tokens', { method: 'POST', json: { name: 'x' } })).status).toBe(403);
    const up = await t.h.admin(`/admin/users/${p.id}`, { method: 'PATCH', json: { role: 'operator' } });
    expect(((await up.json()) as Person).role).toBe('operator');
    expect((await asKey(p.key.secret!, '/admin/tokens', { method: 'POST', json: { name: 'x' } })).status).toBe(201);
    const signIn = await t.h.fetch('/console/api/session', { method: 'POST', json: { key: p.key.secret } });
    expect(signIn.status).toBe(201);
    const session = (await signIn.json()) as { role: string; person: { id: string }; key_id: string };
    expect(session).toMatchObject({ role: 'operator', person: { id: p.id }, key_id: p.key.id });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    expect((await t.h.fetch('/admin/tokens', { headers: { cookie } })).status).toBe(200);
    expect((await t.h.admin(`/admin/users/${p.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await asKey(p.key.secret!, '/admin/tokens')).status).toBe(403);
    expect((await t.h.fetch('/admin/tokens', { headers: { cookie } })).status).toBe(401);
  });

  it('audit lines name the person and the key behind each change, and the audit list filters by person', async () => {
    const p = await newPerson('operator');
    const made = await asKey(p.key.secret!, '/admin/tokens', { method: 'POST', json: { name: 'by-person' } });
    expect(made.status).toBe(201);
    const tokenId = ((await made.json()) as { id: string }).id;
    const lines = await auditOf(p.id);
    expect(lines).toEqual([
      expect.objectContaining({
        action: 'token.create',
        target: tokenId,
        person: { id: p.id, name: p.name },
        key_id: p.key.id,
      }),
    ]);
    // The bootstrap key's own changes name the key, and no person.
    const all = (await (await t.h.admin('/admin/audit?action=user.create&limit=1')).json()) as {
      data: Array<{ person: unknown; key_id: string }>;
    };
    expect(all.data[0]).toMatchObject({ person: null, key_id: 'admin-key' });
  });

  it('bad input is a clear 4xx and changes nothing', async () => {
    const p = await newPerson('billing');
    const before = await (await t.h.admin('/admin/users?limit=1000')).text();
    const keysBefore = await (await t.h.admin(`/admin/users/${p.id}`)).text();
    const bad: Array<[string, string, unknown, number, string]> = [
      ['POST', '/admin/users', { email: 'a@b.test', role: 'viewer' }, 400, 'name is required'],
      ['POST', '/admin/users', { name: 'A', email: 'not-an-address', role: 'viewer' }, 400, 'email'],
      ['POST', '/admin/users', { name: 'A', email: 'a@b.test', role: 'root' }, 400, 'role must be one of'],
      ['POST', '/admin/users', { name: 'A', email: 'a@b.test' }, 400, 'role is required'],
      ['POST', '/admin/users', { name: 'A', email: 'a@b.test', role: 'viewer', admin: true }, 400, 'Unknown field'],
      ['POST', '/admin/users', { name: 'A', email: 'a@b.test', role: 'viewer', expires_in_days: 0 }, 400, 'expires'],
      ['POST', '/admin/users', { name: 'A', email: p.email.toUpperCase(), role: 'viewer' }, 409, 'exists already'],
      ['POST', '/admin/users', [1], 400, 'JSON object'],
      ['PATCH', `/admin/users/${p.id}`, { role: 'superuser' }, 400, 'role must be one of'],
      ['PATCH', `/admin/users/${p.id}`, { disabled: 'yes' }, 400, 'disabled must be'],
      ['PATCH', `/admin/users/${p.id}`, {}, 400, 'Nothing to change'],
      ['PATCH', '/admin/users/usr_nobody', { role: 'viewer' }, 404, 'not found'],
      ['POST', `/admin/users/${p.id}/keys`, { expires_in_days: 99999 }, 400, 'expires_in_days'],
      ['POST', `/admin/users/${p.id}/keys`, { name: 5 }, 400, 'name must be a string'],
      ['POST', '/admin/users/usr_nobody/keys', {}, 404, 'not found'],
      ['POST', `/admin/users/${p.id}/keys/skey_nope/rotate`, {}, 404, 'not found'],
      ['POST', `/admin/users/${p.id}/keys/${p.key.id}/rotate`, { expires_in_days: -1 }, 400, 'expires_in_days'],
      ['DELETE', `/admin/users/${p.id}/keys/skey_nope`, undefined, 404, 'not found'],
      ['GET', `/admin/audit?person=${'x'.repeat(65)}`, undefined, 400, 'person'],
      ['GET', '/admin/users?limit=0', undefined, 400, 'limit'],
    ];
    for (const [method, path, json, status, text] of bad) {
      const r = await t.h.admin(path, { method, ...(json === undefined ? {} : { json }) });
      const body = await r.text();
      expect(r.status, `${method} ${path}: ${body}`).toBe(status);
      expect(body, `${method} ${path}`).toContain(text);
    }
    expect(await (await t.h.admin('/admin/users?limit=1000')).text()).toBe(before);
    expect(await (await t.h.admin(`/admin/users/${p.id}`)).text()).toBe(keysBefore);
    // A bad key or a client token as bearer is refused as before.
    expect((await asKey('tws-not-a-key', '/admin/tokens')).status).toBe(403);
    expect((await asKey(t.token, '/admin/tokens')).status).toBe(403);
  });
});
